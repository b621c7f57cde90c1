// Controls: what the person clicks and types (board squares, the keyboard,
// the buttons, the record's navigation), and the rendering of everything
// around the board (status, move list, statistics, clocks, panels).
import { S, COLOR_NAME, atEnd, overNow, humanToMove } from './game.js';
import { buildBoard, renderBoard, candidates, toView, fromView, numberAt, squareOf, squares } from './board.js';
import { renderGraph } from './graph.js';
import { renderAnalysis } from './analysis.js';
import { renderReview, markAt, markTitle, GLYPH } from './review.js';
import { clockText } from './clock.js';
import { playMove, goTo, undo, newGame, setMode, setMultiPV, playOnFromHere, now, startReview, cancelReview, selectMark } from './play.js';
import { downloadPdn, loadGameText } from './record.js';
import { view } from './view.js';

const $ = (id) => document.getElementById(id);

export function log(line) {
  const el = $('log');
  el.textContent += line + '\n';
  if (el.textContent.length > 60000) el.textContent = el.textContent.slice(-40000);
}

export function notice(text) {
  $('notice').textContent = text || '';
}

const boardHandlers = { click: clickSquare, key: keyOnSquare };

/** Draws the page from S; `rebuild` redraws the board's squares too (new size, flip). */
export function render(rebuild = false) {
  if (rebuild) buildBoard(boardHandlers);
  const { mustCapture, myTurn } = renderBoard();
  renderStatus(mustCapture, myTurn);
  renderMoves();
  renderGraph(goTo, selectMark);
  renderAnalysis();
  renderReview();
  renderClock();
  const n = S.history.length;
  $('undo').disabled = !n || !S.connected || S.reviewing;
  $('movenow').disabled = !S.thinking && !S.analysing;
  $('first-ply').disabled = $('prev-ply').disabled = S.ply === 0 || S.reviewing;
  $('next-ply').disabled = $('last-ply').disabled = S.ply === n || S.reviewing;
  $('playon').hidden = atEnd();
  $('plyinfo').textContent = `move ${S.ply} of ${n}`;
  const b = document.body.dataset;
  // busy first: while the position shown changes, `over` is still the old position's
  b.status = !S.connected ? 'disconnected' : S.reviewing ? 'reviewing' : S.busy && !S.thinking ? 'busy' : overNow() ? 'over' : S.thinking ? 'thinking' : myTurn ? 'human' : atEnd() ? 'engine' : 'review';
  b.variant = S.variant;
  b.turn = S.turn;
  b.plies = String(n);
  b.ply = String(S.ply);
  b.mode = S.mode;
  b.analysing = String(S.analysing);
}

function renderStatus(mustCapture, myTurn) {
  let text;
  const over = overNow();
  if (!S.connected) text = S.started ? 'Not connected to the engine. Press Reconnect to go on with this game.' : 'Not connected to the engine. Press Reconnect (or reload the page) to try again.';
  else if (over) text = 'Game over: ' + over.text;
  else if (S.reviewing) text = `kingme is reviewing the game: ${S.review.entries.size} of ${S.review.moves} moves judged…`;
  else if (S.thinking) text = `kingme (${COLOR_NAME[S.turn]}) is thinking…`;
  else if (myTurn) {
    text = S.mode === 'analyse' ? `Analysing: ${COLOR_NAME[S.turn]} to move; you move for both sides.` : `Your move (${COLOR_NAME[S.human]}).`;
    if (mustCapture) text += ' A capture is mandatory: only the pieces that can capture are selectable.';
    else if (!S.selected.length) text += ' Click a piece, then its destination.';
    if (S.selected.length > 1) text += ' Keep clicking the landing squares of the jump.';
  } else if (!atEnd()) text = `Reviewing move ${S.ply} of ${S.history.length}: ${COLOR_NAME[S.turn]} to move. Step on, or play on from here.`;
  else text = '…';
  if (!atEnd() && S.connected && !over && myTurn) text += ' (A move here replaces the moves after it.)';
  $('status').textContent = text;
  $('status').classList.toggle('alert', !!mustCapture && myTurn);
  const res = $('result');
  const end = S.ply === S.history.length ? over : null;
  if (end) {
    const winner = end.result === '2-0' ? 'B' : end.result === '0-2' ? 'W' : null;
    const you = S.mode === 'analyse' || S.names ? '' : winner === null ? ' A draw.' : winner === S.human ? ' You win!' : ' kingme wins.';
    res.textContent = `${end.result}: ${end.text}.${you}`;
  } else res.textContent = '';
}

function renderMoves() {
  const body = $('movelist').querySelector('tbody');
  body.textContent = '';
  // Rows of (Black, White); a game that White starts leaves the first Black cell empty.
  const rows = [];
  S.history.forEach((h, i) => {
    if (h.mover === 'B' || !rows.length || rows[rows.length - 1].W !== undefined) rows.push({});
    rows[rows.length - 1][h.mover] = { text: h.text, ply: i + 1, book: !!h.book };
  });
  let current = null;
  rows.forEach((r, i) => {
    const tr = document.createElement('tr');
    const num = document.createElement('td');
    num.textContent = `${i + 1}.`;
    tr.appendChild(num);
    for (const c of ['B', 'W']) {
      const td = document.createElement('td');
      if (r[c]) {
        td.textContent = r[c].text;
        if (r[c].book) {
          const badge = document.createElement('span');
          badge.className = 'book';
          badge.textContent = 'book';
          badge.title = 'played from the opening book, without searching';
          td.appendChild(badge);
        }
        const mark = markAt(r[c].ply - 1);
        if (mark) {
          const m = document.createElement('button');
          m.type = 'button';
          m.className = `rv-mark side-${mark.side} ${mark.verdict}` + (S.review.selected === mark.ply ? ' selected' : '');
          m.dataset.index = String(mark.ply);
          m.dataset.verdict = mark.verdict;
          m.textContent = GLYPH[mark.verdict];
          m.title = markTitle(mark);
          m.setAttribute('aria-label', markTitle(mark));
          m.addEventListener('click', (e) => { e.stopPropagation(); selectMark(mark.ply); });
          td.appendChild(m);
        }
        td.dataset.ply = String(r[c].ply);
        td.className = 'mv' + (r[c].ply === S.ply ? ' current' : '');
        td.addEventListener('click', () => goTo(r[c].ply));
        if (r[c].ply === S.ply) current = td;
      } else td.textContent = c === 'B' ? '…' : '';
      tr.appendChild(td);
    }
    body.appendChild(tr);
  });
  const box = $('movelist').parentElement;
  if (current && !atEnd()) current.scrollIntoView({ block: 'nearest' });
  else box.scrollTop = box.scrollHeight;
}

export function renderClock() {
  const c = S.clock;
  $('clocks').hidden = !c;
  if (!c) return;
  const t = now();
  for (const side of ['B', 'W']) {
    const e = $('clock-' + side);
    const left = c.remaining(side, t);
    e.querySelector('.time').textContent = clockText(left);
    e.classList.toggle('running', c.side === side);
    e.classList.toggle('flagged', left <= 0);
    e.dataset.ms = String(Math.round(left));
  }
}

export function clearStats() {
  for (const id of ['depth', 'seldepth', 'score', 'nodes', 'prunes', 'prunesmm', 'nps', 'time', 'pv']) $('st-' + id).textContent = '–';
  $('stats-when').textContent = '';
  $('live-info').textContent = '';
}

const fmt = (n) => (n === undefined ? '–' : Number(n).toLocaleString('en-US'));

export function infoScoreText(score) {
  if (!score) return '–';
  if (score.kind === 'cp') return `${score.n > 0 ? '+' : ''}${(score.n / 100).toFixed(2)} men`;
  if (score.kind === 'win') return `wins in ${score.n} ${score.n === 1 ? 'ply' : 'plies'}`;
  if (score.kind === 'loss') return `loses in ${score.n} ${score.n === 1 ? 'ply' : 'plies'}`;
  return 'draw';
}

export function showStats(info, best) {
  $('st-depth').textContent = info.depth ?? '–';
  $('st-seldepth').textContent = info.seldepth ?? '–';
  $('st-score').textContent = infoScoreText(info.score) + ' (kingme’s view)';
  $('st-nodes').textContent = fmt(info.nodes);
  $('st-prunes').textContent = fmt(info.prunes);
  $('st-prunesmm').textContent = `${fmt(info.prunesmax)} / ${fmt(info.prunesmin)}`;
  $('st-nps').textContent = fmt(info.nps);
  $('st-time').textContent = info.time === undefined ? '–' : `${fmt(info.time)} ms`;
  $('st-pv').textContent = info.pv && info.pv.length ? info.pv.join(' ') : '–';
  $('stats-when').textContent = `after ${best}`;
  $('live-info').textContent = '';
}

/** A search's `info` line while kingme thinks (the live line under the statistics). */
export function showLive(info) {
  if (S.thinking && $('live').checked && info.depth !== undefined) {
    $('live-info').textContent = `thinking: depth ${info.depth}, score ${infoScoreText(info.score)}, ${fmt(info.nodes)} nodes, pv ${(info.pv || []).join(' ')}`;
  }
}

// ------------------------------------------------------------------ input

function clickSquare(num) {
  S.focus = num;
  if (!S.connected) return;
  if (overNow()) { notice(atEnd() ? 'The game is over: start a new game.' : 'That position is over.'); return; }
  if (S.reviewing) { notice('Reviewing the game: wait for it to finish, or press Cancel.'); return; }
  if (S.thinking || S.busy) { notice('Wait for kingme’s move.'); return; }
  if (!humanToMove()) { if (!atEnd()) notice('kingme is to move here: press “Play on from here” to let it, or step through the game.'); return; }
  const k = S.selected.length;
  if (k) {
    const cands = candidates();
    const next = cands.filter((m) => m.path[k] === num);
    if (next.length) {
      const path = S.selected.concat(num);
      const done = next.filter((m) => m.path.length === path.length);
      if (done.length && done.length === next.length) { playMove(done[0]); return; }
      S.selected = path;
      notice('');
      render();
      return;
    }
    const finals = cands.filter((m) => m.path.length > k + 1 && m.path[m.path.length - 1] === num);
    if (finals.length === 1) { playMove(finals[0]); return; }
    if (finals.length > 1) {
      notice('Several jump paths end there: click each landing square in turn.');
      return;
    }
  }
  const p = S.pieces.get(num);
  const mine = p && p.color === S.turn;
  if (mine && !(k === 1 && S.selected[0] === num) && S.legal.some((m) => m.path[0] === num)) {
    S.selected = [num];
    notice('');
    render();
    return;
  }
  if (mine && !S.legal.some((m) => m.path[0] === num)) {
    const capturers = [...new Set(S.legal.filter((m) => m.capture).map((m) => m.path[0]))];
    notice(capturers.length
      ? `A capture is mandatory: move one of ${capturers.join(', ')}.`
      : 'That piece has no legal move.');
  } else if (k) notice('');
  S.selected = [];
  render();
}

function keyOnSquare(e, num) {
  const key = e.key;
  if (key === 'Enter' || key === ' ') {
    e.preventDefault();
    clickSquare(num);
    return;
  }
  if (key === 'Escape') {
    S.selected = [];
    render();
    return;
  }
  const v = toView(squareOf(num));
  let cand = [];
  if (key === 'ArrowLeft') cand = [[v.row, v.col - 2], [v.row - 1, v.col - 1], [v.row + 1, v.col - 1]];
  else if (key === 'ArrowRight') cand = [[v.row, v.col + 2], [v.row + 1, v.col + 1], [v.row - 1, v.col + 1]];
  else if (key === 'ArrowUp') cand = [[v.row - 1, v.col + 1], [v.row - 1, v.col - 1]];
  else if (key === 'ArrowDown') cand = [[v.row + 1, v.col - 1], [v.row + 1, v.col + 1]];
  else return;
  e.preventDefault();
  for (const [r, c] of cand) {
    if (r < 0 || c < 0 || r >= S.size || c >= S.size) continue;
    const b = fromView({ row: r, col: c });
    const target = numberAt(b.row, b.col);
    if (target !== null) {
      S.focus = target;
      render();
      squares.get(target).g.focus();
      return;
    }
  }
}

/** Arrow keys anywhere but the board and the form fields step through the game. */
function keyOnPage(e) {
  if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
  const t = e.target;
  if (t && t.closest && (t.closest('.sq') || t.closest('input, textarea, select, [contenteditable]'))) return;
  const to = { ArrowLeft: S.ply - 1, ArrowRight: S.ply + 1, Home: 0, End: S.history.length }[e.key];
  if (to === undefined) return;
  e.preventDefault();
  goTo(to);
}

/** The game settings chosen in the form. */
export function formSettings() {
  const num = (id) => Math.max(0, Number($(id).value) || 0);
  return {
    variant: $('variant').value,
    first: $('first').value,
    fen: $('fen').value.trim(),
    human: $('color').value,
    level: $('level').value,
    book: $('book').checked,
    clockMin: num('clock-min'),
    clockInc: num('clock-inc'),
  };
}

/** Wires the buttons, fields and keys (once, at start). */
export function wire(reconnect) {
  const start = () => { if (S.connected) newGame(formSettings()); };
  $('setup').addEventListener('submit', (e) => { e.preventDefault(); start(); });
  $('new').addEventListener('click', start);
  $('undo').addEventListener('click', () => { if (S.connected) undo(); });
  $('flip').addEventListener('click', () => { S.flipped = !S.flipped; render(true); });
  $('movenow').addEventListener('click', () => S.proto && S.proto.stop(false));
  $('level').addEventListener('change', () => { S.level = $('level').value; });
  $('book').addEventListener('change', () => { S.book = $('book').checked; });
  $('reconnect').addEventListener('click', reconnect);
  $('first-ply').addEventListener('click', () => goTo(0));
  $('prev-ply').addEventListener('click', () => goTo(S.ply - 1));
  $('next-ply').addEventListener('click', () => goTo(S.ply + 1));
  $('last-ply').addEventListener('click', () => goTo(S.history.length));
  $('playon').addEventListener('click', () => { if (S.connected) playOnFromHere(); });
  $('mode').addEventListener('change', () => { if (S.connected) setMode($('mode').value); });
  $('multipv').addEventListener('change', () => setMultiPV(Number($('multipv').value)));
  $('review-start').addEventListener('click', () => startReview($('review-limit').value));
  $('review-cancel').addEventListener('click', cancelReview);
  $('pdn-download').addEventListener('click', downloadPdn);
  $('pdn-load').addEventListener('click', () => { if (S.connected) loadGameText($('pdn-text').value); });
  $('pdn-file').addEventListener('change', async () => {
    const f = $('pdn-file').files[0];
    if (!f || !S.connected) return;
    if (f.size > 1024 * 1024) { $('pdn-msg').textContent = 'That file is over 1 MB: not a game record.'; return; }
    const text = await f.text();
    $('pdn-file').value = '';
    loadGameText(text);
  });
  document.addEventListener('keydown', keyOnPage);
}

// the game's actions reach the view through this object (see view.js)
Object.assign(view, { render, notice, showStats, clearStats });
