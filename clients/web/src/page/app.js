// kingme web board: a protocol-aware GUI. It speaks the kingme protocol
// (protocol/PROTOCOL.md) over a WebSocket at /ws; the engine owns the rules
// (legal moves, game end), the page keeps the move history and draws the board.
'use strict';

const $ = (id) => document.getElementById(id);
const SVG = 'http://www.w3.org/2000/svg';
const CELL = 100;
const COLOR_NAME = { B: 'Black', W: 'White' };

// ---------------------------------------------------------------- protocol

/** One WebSocket carrying protocol lines, with request/response by `isready`. */
class Proto {
  constructor(url, handlers) {
    this.handlers = handlers;
    this.pending = null; // { lines, resolve } of the request being answered
    this.waiting = []; // requests queued behind it
    this.search = null; // { infos, resolve, discard } while a go runs
    this.ws = new WebSocket(url);
    this.ws.addEventListener('open', () => handlers.open());
    this.ws.addEventListener('close', (e) => handlers.close(e));
    this.ws.addEventListener('message', (e) => {
      for (const line of String(e.data).split('\n')) this.onLine(line.replace(/\r$/, ''));
    });
  }

  send(line) {
    log('> ' + line);
    this.ws.send(line);
  }

  onLine(line) {
    if (line === '') return;
    log('< ' + line);
    if (this.search) {
      if (line.startsWith('bestmove')) {
        const s = this.search;
        this.search = null;
        s.resolve({ best: line.split(/\s+/)[1], infos: s.infos, gameover: s.gameover, discard: s.discard });
        this.next();
        return;
      }
      if (line.startsWith('info string')) return this.handlers.note(line.slice(12));
      if (line.startsWith('info')) {
        const info = parseInfo(line);
        this.search.infos.push(info);
        this.handlers.info(info);
        return;
      }
      if (line.startsWith('gameover')) { this.search.gameover = line; return; }
      if (line.startsWith('error')) {
        // The go was refused: no bestmove will come.
        const s = this.search;
        this.search = null;
        this.handlers.error(line);
        s.resolve({ best: 'none', infos: s.infos, gameover: null, discard: s.discard, error: line });
        this.next();
        return;
      }
    }
    if (this.pending) {
      if (line === 'readyok') {
        const p = this.pending;
        this.pending = null;
        p.resolve(p.lines);
        this.next();
      } else {
        this.pending.lines.push(line);
      }
      return;
    }
    if (line.startsWith('error')) this.handlers.error(line);
  }

  /** Sends `lines` then `isready`; resolves with every line before `readyok`. */
  request(lines) {
    return new Promise((resolve) => {
      this.waiting.push({ kind: 'req', lines, resolve });
      if (!this.pending && !this.search) this.next();
    });
  }

  /** Sends `go ...`; resolves on `bestmove` with the `info` lines seen. */
  go(cmd) {
    return new Promise((resolve) => {
      this.waiting.push({ kind: 'go', cmd, resolve });
      if (!this.pending && !this.search) this.next();
    });
  }

  /** Ends the running search; its result is marked `discard`. */
  stop(discard) {
    if (this.search) {
      this.search.discard = this.search.discard || discard;
      this.send('stop');
    }
  }

  next() {
    if (this.pending || this.search) return;
    const job = this.waiting.shift();
    if (!job) return;
    if (job.kind === 'req') {
      this.pending = { lines: [], resolve: job.resolve };
      for (const l of job.lines) this.send(l);
      this.send('isready');
    } else {
      this.search = { infos: [], gameover: null, discard: false, resolve: job.resolve };
      this.send(job.cmd);
    }
  }
}

function parseInfo(line) {
  const t = line.trim().split(/\s+/);
  const info = {};
  for (let i = 1; i < t.length; i++) {
    const k = t[i];
    if (k === 'pv') { info.pv = t.slice(i + 1); break; }
    if (k === 'score') { info.score = t[i + 1] + ' ' + t[i + 2]; i += 2; continue; }
    info[k] = t[i + 1];
    i++;
  }
  return info;
}

/** `11-15`, `22x15x8` or `pass` as { text, path, capture }. */
function parseMove(text) {
  if (text === 'pass') return { text, path: [], capture: false, pass: true };
  const capture = text.includes('x');
  const path = text.split(/[-x]/).map(Number);
  return { text, path, capture, pass: false };
}

/** A PDN FEN (`B:W21,22:B1,K3`, ranges allowed) as { turn, pieces: Map }. */
function parseFen(fen) {
  const parts = fen.trim().split(':');
  const turn = parts[0].toUpperCase();
  const pieces = new Map();
  for (const part of parts.slice(1)) {
    const color = part[0].toUpperCase();
    for (let item of part.slice(1).split(',')) {
      item = item.trim();
      if (!item) continue;
      const king = item[0] === 'K' || item[0] === 'k';
      if (king) item = item.slice(1);
      const [a, b] = item.split('-').map(Number);
      for (let n = a; n <= (b || a); n++) pieces.set(n, { color, king });
    }
  }
  return { turn, pieces };
}

// ------------------------------------------------------------------- state

const S = {
  proto: null,
  connected: false,
  variant: 'english',
  size: 8,
  human: 'B',
  level: 'easy',
  startFen: null, // null: the start position (Black first); else a FEN
  history: [], // { text, mover }
  pieces: new Map(),
  turn: 'B',
  legal: [], // parsed moves for the side to move
  over: null, // { result, text }
  selected: [], // squares of the move being entered: from, then landings
  flipped: false, // the person's own flip, on top of "my side at the bottom"
  focus: null, // the square with the keyboard focus
  thinking: false,
  busy: false,
  epoch: 0, // bumped by new game / undo: an older engine reply is ignored
  started: false, // a game has been set up (a reconnection resumes it)
};

function log(line) {
  const el = $('log');
  el.textContent += line + '\n';
  if (el.textContent.length > 60000) el.textContent = el.textContent.slice(-40000);
}

function notice(text) {
  $('notice').textContent = text || '';
}

const humanToMove = () => !S.over && !S.thinking && !S.busy && S.turn === S.human;

function positionCmd() {
  let cmd = S.startFen ? 'position fen ' + S.startFen : 'position startpos';
  if (S.history.length) cmd += ' moves ' + S.history.map((h) => h.text).join(' ');
  return cmd;
}

function startFenFor(variant, first) {
  if (first === 'B') return null;
  return variant === 'mini' ? 'W:W13-18:B1-6' : 'W:W21-32:B1-12';
}

// ---------------------------------------------------------- talking to it

/** Sets the engine to the game in S and reads back the board and legal moves. */
async function refresh() {
  const lines = await S.proto.request([positionCmd(), 'board', 'moves']);
  const errors = lines.filter((l) => l.startsWith('error'));
  let fen = null;
  S.over = null;
  S.legal = [];
  for (const l of lines) {
    if (l.startsWith('fen ')) fen = l.slice(4);
    else if (l.startsWith('gameover ')) {
      const m = l.match(/^gameover (\S+) (.*)$/);
      S.over = { result: m ? m[1] : '?', text: m ? m[2] : l };
    } else if (l.startsWith('moves ')) {
      const seen = new Set();
      S.legal = l.slice(6).split(/\s+/).filter((t) => t && t !== 'none' && !seen.has(t) && seen.add(t)).map(parseMove);
    }
  }
  if (fen) {
    const p = parseFen(fen);
    S.pieces = p.pieces;
    S.turn = p.turn;
    S.fen = fen;
  }
  return errors;
}

/** After a reconnection: the engine gets the game in S back, and play goes on. */
async function resume() {
  const epoch = ++S.epoch;
  S.thinking = false;
  S.busy = true;
  render();
  const setup = await S.proto.request([
    `setoption name Variant value ${S.variant}`,
    `newgame ${S.variant}`,
    `setoption name Level value ${S.level}`,
  ]);
  const errors = setup.filter((l) => l.startsWith('error')).concat(await refresh());
  if (epoch !== S.epoch) return;
  notice(errors.length ? errors.join('; ') : 'Reconnected: the game goes on.');
  S.busy = false;
  buildBoard();
  render();
  afterMove();
}

async function newGame() {
  S.started = true;
  const epoch = ++S.epoch;
  S.proto.stop(true);
  S.thinking = false;
  S.busy = true;
  render();
  const variant = $('variant').value;
  const first = $('first').value;
  const fen = $('fen').value.trim();
  S.human = $('color').value;
  S.level = $('level').value;
  S.variant = variant;
  S.size = variant === 'mini' ? 6 : 8;
  S.history = [];
  S.selected = [];
  S.startFen = fen || startFenFor(variant, first);
  notice('');
  clearStats();
  const setup = await S.proto.request([
    `setoption name Variant value ${variant}`,
    `newgame ${variant}`,
    `setoption name Level value ${S.level}`,
  ]);
  let errors = setup.filter((l) => l.startsWith('error'));
  errors = errors.concat(await refresh());
  if (errors.length && S.startFen && fen) {
    notice('That start position was refused: ' + errors.join('; ').replace(/^error /, '') + '. Playing from the start position.');
    S.startFen = startFenFor(variant, first);
    await refresh();
  } else if (errors.length) {
    notice(errors.join('; '));
  }
  if (epoch !== S.epoch) return;
  S.busy = false;
  S.focus = null;
  buildBoard();
  render();
  afterMove();
}

/** After any change: pass for the person if forced, or let the engine move. */
function afterMove() {
  if (S.over || S.busy || S.thinking) return;
  if (S.turn === S.human) {
    if (S.legal.length === 1 && S.legal[0].pass) {
      notice('You have no legal move: your turn is passed.');
      playMove(S.legal[0]);
    }
    return;
  }
  engineMove();
}

async function engineMove() {
  const epoch = S.epoch;
  S.thinking = true;
  $('live-info').textContent = '';
  render();
  await S.proto.request([positionCmd(), `setoption name Level value ${S.level}`]);
  const res = await S.proto.go('go');
  if (epoch !== S.epoch || res.discard) return;
  S.thinking = false;
  if (res.best && res.best !== 'none') {
    S.history.push({ text: res.best, mover: S.turn });
    if (res.best === 'pass') notice('kingme has no legal move: its turn is passed.');
    const final = res.infos.filter((i) => i.depth !== undefined).pop();
    if (final) showStats(final, res.best);
  }
  S.selected = [];
  await refresh();
  if (epoch !== S.epoch) return;
  render();
  afterMove();
}

async function playMove(m) {
  const epoch = S.epoch;
  S.selected = [];
  S.history.push({ text: m.text, mover: S.turn });
  S.busy = true;
  render();
  const errors = await refresh();
  if (epoch !== S.epoch) return;
  S.busy = false;
  if (errors.length) {
    // Should not happen (the move came from the engine's list): take it back.
    S.history.pop();
    notice(errors.join('; '));
    await refresh();
  } else if (!m.pass) {
    notice('');
  }
  render();
  afterMove();
}

async function undo() {
  if (!S.history.length) return;
  const epoch = ++S.epoch;
  S.proto.stop(true);
  S.thinking = false;
  S.busy = true;
  render();
  // Take back to the person's last turn: through their last move.
  while (S.history.length) {
    const h = S.history.pop();
    if (h.mover === S.human) break;
  }
  S.selected = [];
  notice('');
  await refresh();
  if (epoch !== S.epoch) return;
  S.busy = false;
  render();
  afterMove();
}

// ------------------------------------------------------------------ board

const squareOf = (n) => {
  const half = S.size / 2;
  const row = Math.floor((n - 1) / half);
  const idx = (n - 1) % half;
  return { row, col: row % 2 === 0 ? 2 * idx + 1 : 2 * idx };
};
const numberAt = (row, col) => ((row + col) % 2 === 1 ? row * (S.size / 2) + Math.floor(col / 2) + 1 : null);
// Black starts at the top; by default the person's side is at the bottom.
const isFlipped = () => (S.human === 'B') !== S.flipped;
const toView = ({ row, col }) => (isFlipped() ? { row: S.size - 1 - row, col: S.size - 1 - col } : { row, col });
const fromView = toView; // the flip is its own inverse

const squares = new Map(); // number -> { g, piece }

function el(name, attrs, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

function buildBoard() {
  const svg = $('board');
  const hadFocus = svg.contains(document.activeElement);
  svg.textContent = '';
  squares.clear();
  const n = S.size;
  svg.setAttribute('viewBox', `0 0 ${n * CELL} ${n * CELL}`);
  for (let row = 0; row < n; row++) {
    for (let col = 0; col < n; col++) {
      const v = toView({ row, col });
      const x = v.col * CELL;
      const y = v.row * CELL;
      const num = numberAt(row, col);
      if (num === null) {
        el('rect', { x, y, width: CELL, height: CELL, class: 'light' }, svg);
        continue;
      }
      const g = el('g', { class: 'sq', 'data-square': num, tabindex: '-1', role: 'button' }, svg);
      el('rect', { x, y, width: CELL, height: CELL, class: 'dark' }, g);
      el('circle', { cx: x + 50, cy: y + 50, r: 16, class: 'dot' }, g);
      const label = el('text', { x: x + 5, y: y + 18, class: 'num' }, g);
      label.textContent = num;
      const piece = el('g', { class: 'piece' }, g);
      el('circle', { cx: x + 50, cy: y + 53, r: 36, class: 'rim' }, piece);
      el('circle', { cx: x + 50, cy: y + 49, r: 36, class: 'top' }, piece);
      el('circle', { cx: x + 50, cy: y + 49, r: 25, class: 'ring' }, piece);
      el('path', {
        d: `M${x + 32} ${y + 60} L${x + 29} ${y + 38} L${x + 40} ${y + 48} L${x + 50} ${y + 33} L${x + 60} ${y + 48} L${x + 71} ${y + 38} L${x + 68} ${y + 60} Z`,
        class: 'crown',
      }, piece);
      el('rect', { x: x + 2, y: y + 2, width: CELL - 4, height: CELL - 4, class: 'focusring' }, g);
      g.addEventListener('click', () => clickSquare(num));
      g.addEventListener('keydown', (e) => keyOnSquare(e, num));
      squares.set(num, { g, piece });
    }
  }
  if (!squares.has(S.focus)) S.focus = firstFocus();
  if (hadFocus) squares.get(S.focus).g.focus();
}

function firstFocus() {
  const movable = S.legal.filter((m) => !m.pass).map((m) => m.path[0]);
  return movable.length ? Math.min(...movable) : 1;
}

/** Moves still possible given the squares clicked so far. */
function candidates() {
  const k = S.selected.length;
  if (!k) return [];
  return S.legal.filter((m) => !m.pass && S.selected.every((s, i) => m.path[i] === s));
}

function render() {
  const mustCapture = S.legal.some((m) => m.capture);
  const myTurn = humanToMove();
  const movable = new Set(myTurn ? S.legal.filter((m) => !m.pass).map((m) => m.path[0]) : []);
  const cands = candidates();
  const k = S.selected.length;
  const next = new Set(cands.filter((m) => m.path.length > k).map((m) => m.path[k]));
  const finalCount = new Map();
  for (const m of cands) {
    if (m.path.length > k + 1) {
      const f = m.path[m.path.length - 1];
      finalCount.set(f, (finalCount.get(f) || 0) + 1);
    }
  }
  const last = S.history.length ? parseMove(S.history[S.history.length - 1].text) : null;
  const lastSquares = new Set(last ? last.path : []);
  for (const [num, { g }] of squares) {
    const p = S.pieces.get(num);
    g.classList.toggle('has-piece', !!p);
    g.classList.toggle('black', !!p && p.color === 'B');
    g.classList.toggle('white', !!p && p.color === 'W');
    g.classList.toggle('king', !!p && p.king);
    g.classList.toggle('movable', movable.has(num) && !k);
    g.classList.toggle('must-capture', mustCapture && movable.has(num) && !k);
    g.classList.toggle('selected', k > 0 && num === S.selected[0]);
    g.classList.toggle('path', k > 1 && S.selected.slice(1).includes(num));
    g.classList.toggle('dest', next.has(num));
    g.classList.toggle('final', !next.has(num) && finalCount.get(num) === 1);
    g.classList.toggle('last', lastSquares.has(num));
    g.setAttribute('tabindex', num === S.focus ? '0' : '-1');
    let label = `square ${num}`;
    if (p) label += `, ${COLOR_NAME[p.color].toLowerCase()} ${p.king ? 'king' : 'man'}`;
    if (next.has(num)) label += ', legal destination';
    if (k > 0 && num === S.selected[0]) label += ', selected';
    else if (movable.has(num) && !k) label += mustCapture ? ', can capture' : ', can move';
    g.setAttribute('aria-label', label);
  }
  renderStatus(mustCapture, myTurn);
  renderMoves();
  $('undo').disabled = !S.history.length || !S.connected;
  $('movenow').disabled = !S.thinking;
  document.body.dataset.status = !S.connected ? 'disconnected' : S.over ? 'over' : S.thinking ? 'thinking' : S.busy ? 'busy' : myTurn ? 'human' : 'engine';
  document.body.dataset.variant = S.variant;
  document.body.dataset.turn = S.turn;
  document.body.dataset.plies = String(S.history.length);
}

function renderStatus(mustCapture, myTurn) {
  let text;
  if (!S.connected) text = S.started ? 'Not connected to the engine. Press Reconnect to go on with this game.' : 'Not connected to the engine. Press Reconnect (or reload the page) to try again.';
  else if (S.over) text = 'Game over: ' + S.over.text;
  else if (S.thinking) text = `kingme (${COLOR_NAME[S.turn]}) is thinking…`;
  else if (myTurn) {
    text = `Your move (${COLOR_NAME[S.human]}).`;
    if (mustCapture) text += ' A capture is mandatory: only the pieces that can capture are selectable.';
    else if (!S.selected.length) text += ' Click a piece, then its destination.';
    if (S.selected.length > 1) text += ' Keep clicking the landing squares of the jump.';
  } else text = '…';
  $('status').textContent = text;
  $('status').classList.toggle('alert', !!mustCapture && myTurn);
  const res = $('result');
  if (S.over) {
    const winner = S.over.result === '2-0' ? 'B' : S.over.result === '0-2' ? 'W' : null;
    const you = winner === null ? 'A draw.' : winner === S.human ? 'You win!' : 'kingme wins.';
    res.textContent = `${S.over.result}: ${S.over.text}. ${you}`;
  } else res.textContent = '';
}

function renderMoves() {
  const body = $('movelist').querySelector('tbody');
  body.textContent = '';
  // Rows of (Black, White); a game that White starts leaves the first Black cell empty.
  const rows = [];
  for (const h of S.history) {
    if (h.mover === 'B' || !rows.length || rows[rows.length - 1].W !== undefined) {
      rows.push({});
    }
    rows[rows.length - 1][h.mover] = h.text;
  }
  rows.forEach((r, i) => {
    const tr = document.createElement('tr');
    for (const text of [String(i + 1) + '.', r.B === undefined ? '…' : r.B, r.W === undefined ? '' : r.W]) {
      const td = document.createElement('td');
      td.textContent = text;
      tr.appendChild(td);
    }
    body.appendChild(tr);
  });
  const list = $('movelist');
  list.parentElement.scrollTop = list.parentElement.scrollHeight;
}

function clearStats() {
  for (const id of ['depth', 'seldepth', 'score', 'nodes', 'prunes', 'prunesmm', 'nps', 'time', 'pv']) $('st-' + id).textContent = '–';
  $('stats-when').textContent = '';
  $('live-info').textContent = '';
}

const fmt = (n) => (n === undefined ? '–' : Number(n).toLocaleString('en-US'));

function scoreText(score) {
  if (!score) return '–';
  const [kind, n] = score.split(' ');
  if (kind === 'cp') return `${Number(n) > 0 ? '+' : ''}${(Number(n) / 100).toFixed(2)} men`;
  if (kind === 'win') return `wins in ${n} ${n === '1' ? 'ply' : 'plies'}`;
  if (kind === 'loss') return `loses in ${n} ${n === '1' ? 'ply' : 'plies'}`;
  return score;
}

function showStats(info, best) {
  $('st-depth').textContent = info.depth ?? '–';
  $('st-seldepth').textContent = info.seldepth ?? '–';
  $('st-score').textContent = scoreText(info.score) + ' (kingme’s view)';
  $('st-nodes').textContent = fmt(info.nodes);
  $('st-prunes').textContent = fmt(info.prunes);
  $('st-prunesmm').textContent = `${fmt(info.prunesmax)} / ${fmt(info.prunesmin)}`;
  $('st-nps').textContent = fmt(info.nps);
  $('st-time').textContent = info.time === undefined ? '–' : `${fmt(info.time)} ms`;
  $('st-pv').textContent = info.pv && info.pv.length ? info.pv.join(' ') : '–';
  $('stats-when').textContent = `after ${best}`;
  $('live-info').textContent = '';
}

// ------------------------------------------------------------------ input

function clickSquare(num) {
  S.focus = num;
  if (!S.connected) return;
  if (S.over) { notice('The game is over: start a new game.'); return; }
  if (S.thinking || S.busy) { notice('Wait for kingme’s move.'); return; }
  if (S.turn !== S.human) return;
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
  const mine = p && p.color === S.human;
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

// ------------------------------------------------------------------- start

function connect() {
  const url = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/ws';
  S.proto = new Proto(url, {
    open: async () => {
      S.connected = true;
      $('conn').textContent = 'connected';
      $('conn').className = 'conn ok';
      $('reconnect').hidden = true;
      await S.proto.request(['kingme']);
      if (S.started) resume();
      else newGame();
    },
    close: () => {
      S.connected = false;
      S.thinking = false;
      $('conn').textContent = 'disconnected';
      $('conn').className = 'conn bad';
      $('reconnect').hidden = false;
      render();
    },
    info: (info) => {
      if ($('live').checked && info.depth !== undefined) {
        $('live-info').textContent = `thinking: depth ${info.depth}, score ${scoreText(info.score)}, ${fmt(info.nodes)} nodes, pv ${(info.pv || []).join(' ')}`;
      }
    },
    note: (text) => { $('live-info').textContent = text; },
    error: (line) => notice(line),
  });
}

function applyParams() {
  const q = new URLSearchParams(location.search);
  const set = (id, v, ok) => { if (v !== null && ok.includes(v)) $(id).value = v; };
  set('variant', q.get('variant'), ['english', 'mini']);
  set('color', (q.get('color') || '').slice(0, 1).toUpperCase() || null, ['B', 'W']);
  set('first', (q.get('first') || '').slice(0, 1).toUpperCase() || null, ['B', 'W']);
  set('level', q.get('level'), ['easy', 'medium', 'hard', 'max']);
  if (q.get('fen')) $('fen').value = q.get('fen');
  if (q.get('flip') === '1') S.flipped = true;
}

document.addEventListener('DOMContentLoaded', () => {
  applyParams();
  S.variant = $('variant').value;
  S.size = S.variant === 'mini' ? 6 : 8;
  S.human = $('color').value;
  buildBoard();
  render();
  $('setup').addEventListener('submit', (e) => { e.preventDefault(); if (S.connected) newGame(); });
  $('new').addEventListener('click', () => { if (S.connected) newGame(); });
  $('undo').addEventListener('click', () => { if (S.connected) undo(); });
  $('flip').addEventListener('click', () => { S.flipped = !S.flipped; buildBoard(); render(); });
  $('movenow').addEventListener('click', () => S.proto && S.proto.stop(false));
  $('level').addEventListener('change', () => { S.level = $('level').value; });
  $('reconnect').addEventListener('click', () => { if (!S.connected) connect(); });
  connect();
});
