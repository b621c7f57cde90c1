// The game with the engine: setting it up, the engine's moves (with the
// clock), the person's moves, stepping through the record, playing on from an
// earlier position, analysis, and the review of the game. Every change of
// position bumps S.epoch so a reply about an older position is ignored.
import { S, COLOR_NAME, atEnd, overNow, other, positionCmd, toBlack, truncate, firstToMove, startFenFor, reviewable } from './game.js';
import { parseBoardReply, parseFen } from './protocol.js';
import { Clock } from './clock.js';
import { view } from './view.js';

export const now = () => performance.now();

/** Sets the engine to the position shown and reads back its board, legal moves and values. */
export async function refresh() {
  const r = parseBoardReply(await S.proto.request([positionCmd(), 'board', 'moves']));
  S.over = r.over;
  S.legal = r.legal;
  S.values = r.values;
  S.database = r.database;
  if (r.fen) {
    const p = parseFen(r.fen);
    S.pieces = p.pieces;
    S.turn = p.turn;
    S.fen = r.fen;
  }
  if (atEnd() && !r.errors.length) S.finalOver = r.over;
  return r.errors;
}

/** The engine set to a new game of `variant` at the session's level; returns its error lines. */
export async function setupEngine(variant) {
  const lines = await S.proto.request([
    `setoption name Variant value ${variant}`,
    `newgame ${variant}`,
    `setoption name Level value ${S.level}`,
    `setoption name OwnBook value ${S.book}`,
  ]);
  return lines.filter((l) => l.startsWith('error'));
}

/** Stops whatever the engine is doing for the position shown; the caller changes it next. */
export function interrupt() {
  const epoch = ++S.epoch;
  if (S.proto) S.proto.stop(true);
  S.thinking = false;
  S.analysing = false;
  S.reviewing = false;
  if (S.review && S.review.state === 'running') S.review.state = 'stopped';
  S.lines.clear();
  return epoch;
}

/** The side to move at the end of the game. */
const endTurn = () => (S.history.length % 2 === 0 ? firstToMove() : other(firstToMove()));

/** Runs the clock of the side to move at the game's end, or pauses it (analysis, game over). */
export function syncClock() {
  const c = S.clock;
  if (!c) return;
  const over = S.ended || (S.finalOver !== undefined && S.finalOver);
  if (S.mode === 'play' && !over && S.connected) c.run(endTurn(), now());
  else c.pause(now());
}

/** Called every 100 ms: a side out of time loses. */
export function tickClock() {
  const c = S.clock;
  if (!c) return;
  const flag = c.flagged(now());
  if (flag && !S.ended) {
    c.pause(now());
    c.left[flag] = 0;
    S.ended = { result: flag === 'B' ? '0-2' : '2-0', text: `${COLOR_NAME[flag]} lost on time` };
    if (S.thinking) interrupt();
    view.notice(`${COLOR_NAME[flag]} ran out of time.`);
    view.render();
  }
}

export async function newGame(opts) {
  S.started = true;
  const epoch = interrupt();
  S.busy = true;
  view.render();
  const { variant, first, fen, human, level, book, clockMin, clockInc } = opts;
  S.human = human;
  S.level = level;
  S.book = !!book;
  S.variant = variant;
  S.size = variant === 'mini' ? 6 : 8;
  S.history = [];
  S.ply = 0;
  S.evals.clear();
  S.ended = null;
  S.finalOver = undefined;
  S.names = null;
  S.loaded = false;
  S.review = null;
  S.selected = [];
  S.startFen = fen || startFenFor(variant, first);
  S.clock = clockMin > 0 ? new Clock(Math.round(clockMin * 60000), Math.round(clockInc * 1000), now()) : null;
  view.notice('');
  let errors = await setupEngine(variant);
  errors = errors.concat(await refresh());
  if (errors.length && S.startFen && fen) {
    view.notice('That start position was refused: ' + errors.join('; ').replace(/^error /, '') + '. Playing from the start position.');
    S.startFen = startFenFor(variant, first);
    await refresh();
  } else if (errors.length) {
    view.notice(errors.join('; '));
  }
  if (epoch !== S.epoch) return;
  S.busy = false;
  S.focus = null;
  view.render(true);
  afterChange();
}

/** After a reconnection: the engine gets the game back, and play goes on. */
export async function resume() {
  const epoch = interrupt();
  S.busy = true;
  view.render();
  const errors = (await setupEngine(S.variant)).concat(await refresh());
  if (epoch !== S.epoch) return;
  view.notice(errors.length ? errors.join('; ') : 'Reconnected: the game goes on.');
  S.busy = false;
  view.render(true);
  afterChange();
}

/** After any change: the engine moves, analyses, or passes for the person when forced. */
export function afterChange() {
  if (!S.connected || S.busy || S.thinking || S.analysing || S.reviewing) return;
  syncClock();
  if (S.mode === 'analyse') { analyse(); return; }
  if (overNow() || !atEnd()) return;
  if (S.turn === S.human) {
    if (S.legal.length === 1 && S.legal[0].pass) {
      view.notice('You have no legal move: your turn is passed.');
      playMove(S.legal[0]);
    }
    return;
  }
  engineMove();
}

async function engineMove() {
  const epoch = S.epoch;
  S.thinking = true;
  S.lines.clear();
  document.getElementById('live-info').textContent = '';
  view.render();
  const pre = [positionCmd(), `setoption name Level value ${S.level}`, `setoption name OwnBook value ${S.book}`];
  if (S.engineMultiPV) pre.push('setoption name MultiPV value 1');
  await S.proto.request(pre);
  if (epoch !== S.epoch) return;
  const res = await S.proto.go(S.clock ? S.clock.goCmd(now()) : 'go');
  if (epoch !== S.epoch || res.discard) return;
  S.thinking = false;
  const mover = S.turn;
  if (res.best && res.best !== 'none') {
    const final = res.infos.filter((i) => i.depth !== undefined && i.multipv === 1).pop();
    const book = res.book && res.book.move === res.best ? res.book : null;
    const score = book ? book.score : final && final.score;
    if (score) S.evals.set(S.ply, toBlack(score, mover));
    S.history.push(book ? { text: res.best, mover, book: true } : { text: res.best, mover });
    S.ply = S.history.length;
    if (S.clock) S.clock.moved(mover, other(mover), now());
    if (res.best === 'pass') view.notice('kingme has no legal move: its turn is passed.');
    if (final) view.showStats(final, res.best);
  }
  S.selected = [];
  S.lines.clear();
  await refresh();
  if (epoch !== S.epoch) return;
  view.render();
  afterChange();
}

/** The person's move in the position shown; moves after it in the record are replaced. */
export async function playMove(m) {
  const epoch = interrupt();
  S.selected = [];
  const mover = S.turn;
  if (!atEnd()) truncate(S.ply);
  S.history.push({ text: m.text, mover });
  S.ply = S.history.length;
  S.finalOver = undefined;
  if (S.clock && S.mode === 'play') S.clock.moved(mover, other(mover), now());
  S.busy = true;
  view.render();
  const errors = await refresh();
  if (epoch !== S.epoch) return;
  S.busy = false;
  if (errors.length) {
    // Should not happen (the move came from the engine's list): take it back.
    S.history.pop();
    S.ply = S.history.length;
    view.notice(errors.join('; '));
    await refresh();
  } else if (!m.pass) {
    view.notice('');
  }
  view.render();
  afterChange();
}

/** While the engine reviews the game the position shown stays: says so, and returns true. */
function waitForReview() {
  if (S.reviewing) view.notice('Reviewing the game: wait for it to finish, or press Cancel.');
  return S.reviewing;
}

/** Shows the position after `ply` moves of the record. */
export async function goTo(ply) {
  ply = Math.max(0, Math.min(S.history.length, ply));
  if (!S.connected || (ply === S.ply && !S.busy) || waitForReview()) return;
  const epoch = interrupt();
  S.ply = ply;
  S.selected = [];
  S.busy = true;
  view.render();
  await refresh();
  if (epoch !== S.epoch) return;
  S.busy = false;
  view.render();
  afterChange();
}

/** Takes back to the person's last turn (one ply while analysing). */
export async function undo() {
  if (!S.history.length || waitForReview()) return;
  const epoch = interrupt();
  S.busy = true;
  view.render();
  let ply = S.history.length;
  while (ply > 0) {
    ply--;
    if (S.mode === 'analyse' || S.history[ply].mover === S.human) break;
  }
  truncate(ply);
  S.ply = ply;
  S.selected = [];
  view.notice('');
  await refresh();
  if (epoch !== S.epoch) return;
  S.busy = false;
  view.render();
  afterChange();
}

/** Drops the moves after the position shown so the game goes on from it. */
export function playOnFromHere() {
  if (atEnd() || waitForReview()) return;
  interrupt();
  truncate(S.ply);
  S.finalOver = S.over;
  view.render();
  afterChange();
}

export function setMode(mode) {
  if (S.mode === mode) return;
  // a review goes on: the new mode takes effect when it ends
  if (S.reviewing) { S.mode = mode; view.render(); return; }
  interrupt();
  S.mode = mode;
  syncClock();
  view.render();
  afterChange();
}

export function setMultiPV(n) {
  S.multipv = n;
  if (S.mode !== 'analyse' || S.reviewing) return;
  interrupt();
  view.render();
  afterChange();
}

/** An infinite search of the position shown, its lines shown live, until the position changes. */
async function analyse() {
  const epoch = S.epoch;
  S.lines.clear();
  if (overNow()) { view.render(); return; }
  S.analysing = true;
  view.render();
  const pre = [positionCmd()];
  if (S.engineMultiPV) pre.push(`setoption name MultiPV value ${S.multipv}`);
  await S.proto.request(pre);
  if (epoch !== S.epoch) return;
  await S.proto.go(S.engineMultiPV ? `analyze ${S.multipv}` : 'go infinite');
  if (epoch === S.epoch) {
    S.analysing = false;
    view.render();
  }
}

/** An `info` line of the running search. */
export function onInfo(info) {
  if (info.depth === undefined || (!S.analysing && !S.thinking)) return;
  S.lines.set(info.multipv, info);
  if (S.analysing && info.multipv === 1 && info.score) S.evals.set(S.ply, toBlack(info.score, S.turn));
  view.render();
}

/**
 * Reviews the whole game: the engine judges every move (`review LIMIT`, e.g.
 * `movetime 300`), each judged move shown as it comes (its mark, the scores on
 * the graph), then each side's figures. An analysis running is stopped first
 * and starts again after; Cancel (cancelReview) keeps what was judged.
 */
export async function startReview(limit) {
  if (!reviewable()) return;
  const epoch = interrupt();
  const moves = S.history.length;
  S.review = { moves, limit, entries: new Map(), done: null, state: 'running', selected: null };
  S.reviewing = true;
  view.notice('');
  view.render();
  const errors = (await S.proto.request([positionCmd(moves)])).filter((l) => l.startsWith('error'));
  if (epoch !== S.epoch) return;
  const review = S.review;
  const res = errors.length ? { error: errors.join('; '), done: null } : await S.proto.review(`review ${limit}`, (entry) => {
    if (epoch !== S.epoch || entry.ply < 0 || entry.ply >= moves) return;
    const side = S.history[entry.ply].mover;
    review.entries.set(entry.ply, { ...entry, side });
    S.evals.set(entry.ply, toBlack(entry.score, side));
    // The game's last position is searched as the last move's value.
    if (entry.ply === moves - 1 && !S.evals.has(moves)) S.evals.set(moves, toBlack(entry.played, side));
    view.render();
  });
  if (epoch !== S.epoch) return;
  S.reviewing = false;
  review.done = res.done;
  review.state = res.done ? res.done.state : 'refused';
  if (res.error) view.notice(res.error.replace(/^error /, 'The engine refused the review: '));
  await refresh();
  if (epoch !== S.epoch) return;
  view.render();
  afterChange();
}

/** Ends the review running now; the moves judged so far keep their marks. */
export function cancelReview() {
  if (S.reviewing && S.proto) S.proto.stop(false);
}

/**
 * Chooses the mark of move `index`: the board goes to the position before
 * that move, where the better move is drawn (board.js) and the line the
 * engine expected is shown (review.js).
 */
export function selectMark(index) {
  if (!S.review || !S.review.entries.has(index) || waitForReview()) return;
  S.review.selected = index;
  if (S.ply === index) view.render();
  else goTo(index);
}
