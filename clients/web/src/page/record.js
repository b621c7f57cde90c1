// The game as a record: PDN out (a download) and in (pasted or a file; a PDN
// game, or a FEN and moves). A record is checked by the engine ply by ply
// before it replaces the game; a bad one leaves the game as it was.
import { S, firstToMove, gameResult, other } from './game.js';
import { writePdn, pdnDate, parseGameText, PdnError } from './pdn.js';
import { parseMove } from './protocol.js';
import { interrupt, setupEngine, refresh, afterChange, syncClock } from './play.js';
import { view } from './view.js';

const $ = (id) => document.getElementById(id);

function message(text, bad) {
  const m = $('pdn-msg');
  m.textContent = text;
  m.classList.toggle('bad', !!bad);
  m.dataset.kind = bad ? 'error' : 'ok';
}

const playerName = (side) => {
  if (S.names && S.names[side]) return S.names[side];
  if (S.mode === 'play') return side === S.human ? 'You' : `kingme (${S.level})`;
  return '?';
};

/** The game (the whole record, not only up to the position shown) as PDN. */
export function pdnText() {
  const end = S.finalOver || S.ended;
  return writePdn({
    event: 'kingme web board',
    date: pdnDate(),
    black: playerName('B'),
    white: playerName('W'),
    result: gameResult(S.finalOver),
    variant: S.variant,
    fen: S.startFen,
    moves: S.history.map((h) => h.text),
    termination: end ? end.text : undefined,
  });
}

export function downloadPdn() {
  const blob = new Blob([pdnText()], { type: 'application/x-pdn' });
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = `kingme-${pdnDate().replace(/\./g, '-')}.pdn`;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
  message(`Downloaded ${S.history.length} moves as ${a.download}.`);
}

const RESULT_WORDS = { '2-0': 'Black won', '0-2': 'White won', '1-1': 'a draw' };
const normalResult = (r) => ({ '1-0': '2-0', '0-1': '0-2', '1/2-1/2': '1-1' }[r] || r);

/** The legal move a record's move names: the same text, or the only one with its start and end. */
function fullMove(text, legal) {
  const exact = legal.find((m) => m.text === text);
  if (exact) return exact.text;
  const want = parseMove(text);
  const fits = legal.filter((m) => !m.pass && m.path[0] === want.path[0] && m.path[m.path.length - 1] === want.path[want.path.length - 1]
    && (want.path.length === 2 || m.path.join(',') === want.path.join(',')));
  return fits.length === 1 ? fits[0].text : null;
}

/**
 * Loads a pasted or read record. The engine replays it ply by ply (every
 * position's legal moves, in one request) and only a game that replays
 * replaces the current one; otherwise a message says what is wrong.
 */
export async function loadGameText(text) {
  let g;
  try {
    g = parseGameText(text);
  } catch (e) {
    if (!(e instanceof PdnError)) throw e;
    message(`Not loaded: ${e.message} The current game is unchanged.`, true);
    return false;
  }
  const variant = g.variant || S.variant;
  const epoch = interrupt();
  S.busy = true;
  view.render();
  const start = g.fen ? `position fen ${g.fen}` : 'position startpos';
  const lines = [`setoption name Variant value ${variant}`, `newgame ${variant}`];
  for (let k = 0; k <= g.moves.length; k++) {
    lines.push(k ? `${start} moves ${g.moves.slice(0, k).join(' ')}` : start, 'moves');
  }
  lines.push('board');
  const reply = await S.proto.request(lines);
  let problem = null;
  const legal = [];
  let finalOver = null;
  for (const l of reply) {
    if (l.startsWith('error') && !problem) problem = l.replace(/^error (position: )?/, '');
    else if (l.startsWith('moves ')) legal.push(l.slice(6).split(/\s+/).filter((t) => t && t !== 'none').map(parseMove));
    else if (l.startsWith('gameover ')) {
      const m = l.match(/^gameover (\S+) (.*)$/);
      if (m) finalOver = { result: m[1], text: m[2] };
    }
  }
  const moves = [];
  if (!problem) {
    for (let k = 0; k < g.moves.length; k++) {
      const full = fullMove(g.moves[k], legal[k] || []);
      if (!full) { problem = `move ${k + 1} ('${g.moves[k]}') is not one legal move here`; break; }
      moves.push(full);
    }
  }
  if (problem) {
    // The game stays as it was, and so does the engine's.
    const errors = (await setupEngine(S.variant)).concat(await refresh());
    if (epoch !== S.epoch) return false;
    S.busy = false;
    message(`Not loaded: ${problem}. The current game is unchanged.` + (errors.length ? ' ' + errors.join('; ') : ''), true);
    view.render();
    afterChange();
    return false;
  }
  if (epoch !== S.epoch) return false;
  S.variant = variant;
  S.size = variant === 'mini' ? 6 : 8;
  $('variant').value = variant;
  S.startFen = g.fen || null;
  let mover = firstToMove();
  S.history = moves.map((text) => { const h = { text, mover }; mover = other(mover); return h; });
  S.ply = 0;
  S.evals.clear();
  S.review = null;
  S.loaded = true;
  S.lines.clear();
  S.selected = [];
  S.focus = null;
  S.finalOver = finalOver;
  const result = normalResult(g.result || '*');
  const term = g.tags.get('termination');
  S.ended = !finalOver && result !== '*' ? { result, text: `${RESULT_WORDS[result] || result} (${term || 'from the record'})` } : null;
  S.names = g.tags.size ? { B: g.tags.get('black') || '?', W: g.tags.get('white') || '?' } : null;
  S.clock = null;
  await setupEngine(variant);
  await refresh();
  if (epoch !== S.epoch) return false;
  S.busy = false;
  S.started = true;
  view.clearStats();
  view.notice('');
  const who = S.names ? `${S.names.B} (Black) v ${S.names.W} (White)` : `from ${S.startFen || 'the start'}`;
  message(`Loaded ${moves.length} moves, ${who}${S.ended || finalOver ? ', ' + gameResult(finalOver) : ''}. Step through it with the arrows; a move played replaces the moves after it.`);
  syncClock();
  view.render(true);
  afterChange();
  return true;
}
