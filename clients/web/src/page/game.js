// The game state: the record (start position, moves, the engine's score of
// each searched position, how it ended) and the position shown (the cursor),
// plus what the engine said about that position. One object, S, that every
// module reads. Who changes what: the game's actions (play.js, record.js) the
// record, the position shown and the engine's state; app.js the connection and
// the settings read from the URL; controls.js the settings the person changes
// and the move being entered; board.js the keyboard focus. Every field is
// declared here.

export const COLOR_NAME = { B: 'Black', W: 'White' };
export const other = (c) => (c === 'B' ? 'W' : 'B');

export const S = {
  proto: null,
  connected: false,
  variant: 'english',
  size: 8,
  human: 'B',
  level: 'easy',
  book: true, // play kingme's moves from its opening book where it has them (OwnBook)
  mode: 'play', // 'play': the engine plays the other side; 'analyse': it moves for neither
  multipv: 3, // lines shown while analysing
  engineMultiPV: false, // the engine offers the MultiPV option
  startFen: null, // null: the start position (Black first); else a FEN
  history: [], // { text, mover }: the whole game
  ply: 0, // moves of `history` played in the position shown
  evals: new Map(), // position ply -> { kind, n } from Black's view (the engine's searches)
  ended: null, // { result, text }: an end the rules don't see (loss on time, a loaded PDN's result)
  names: null, // { B, W } from a loaded PDN
  loaded: false, // the game came from a record (PDN or FEN and moves)
  // The engine's review of the game's first `moves` moves (see play.js,
  // review.js): { moves, limit, entries: Map move index -> parsed `review` line
  // plus its `side`, done: the parsed `reviewdone` line or null, state:
  // 'running' | 'complete' | 'stopped' | 'refused', selected: the move index
  // of the mark chosen, or null }. Dropped when those moves change.
  review: null,
  // The position shown, as the engine reports it:
  pieces: new Map(),
  turn: 'B',
  fen: null,
  legal: [], // parsed moves for the side to move
  values: new Map(), // move -> exact { kind, n } (mover's view), when the engine knows
  database: null, // 'win' | 'draw' | 'loss' (side to move) when the databases know
  over: null, // { result, text }: the rules' verdict on the position shown
  finalOver: undefined, // the rules' verdict on the game's last position, once seen (undefined: not yet)
  // The page:
  selected: [], // squares of the move being entered: from, then landings
  flipped: false, // the person's own flip, on top of "my side at the bottom"
  focus: null, // the square with the keyboard focus
  thinking: false, // the engine is choosing its move
  analysing: false, // the engine analyses the position shown
  reviewing: false, // the engine reviews the game (nothing else is sent meanwhile but stop)
  lines: new Map(), // multipv -> info, of the search running now
  busy: false,
  epoch: 0, // bumped by every change of game or position: an older engine reply is ignored
  started: false, // a game has been set up (a reconnection resumes it)
  clock: null, // see clock.js
};

export const atEnd = () => S.ply === S.history.length;

/** How the shown position is over: the rules, or (at the end of the game) time or a loaded result. */
export const overNow = () => S.over || (atEnd() ? S.ended : null);

/** The person may move now (either side while analysing). */
export const humanToMove = () =>
  S.connected && !overNow() && !S.thinking && !S.busy && !S.reviewing && (S.mode === 'analyse' || S.turn === S.human);

/**
 * The game may be reviewed now: it has moves, it is over, came from a record
 * or is being analysed (so the engine plays no side of it), and the engine is
 * free (not choosing a move, not reviewing; an analysis is stopped for it).
 */
export const reviewable = () =>
  S.connected && !S.busy && !S.thinking && !S.reviewing && S.history.length > 0
  && (S.loaded || S.mode === 'analyse' || !!(S.finalOver || S.ended));

/** The `position` command for the game up to `ply` moves (default: the position shown). */
export function positionCmd(ply = S.ply) {
  let cmd = S.startFen ? 'position fen ' + S.startFen : 'position startpos';
  if (ply > 0) cmd += ' moves ' + S.history.slice(0, ply).map((h) => h.text).join(' ');
  return cmd;
}

export function startFenFor(variant, first) {
  if (first === 'B') return null;
  return variant === 'mini' ? 'W:W13-18:B1-6' : 'W:W21-32:B1-12';
}

/** The side to move first in this game. */
export const firstToMove = () => (S.startFen ? S.startFen.trim()[0].toUpperCase() : 'B');

/** Keeps the first `ply` moves (and their scores): playing on from an earlier position. */
export function truncate(ply) {
  S.history.length = ply;
  for (const p of [...S.evals.keys()]) if (p > ply) S.evals.delete(p);
  S.ended = null;
  if (S.review && ply < S.review.moves) S.review = null;
}

/** A score from the side to move's view turned to Black's view. */
export function toBlack(score, turn) {
  if (!score || turn === 'B') return score;
  if (score.kind === 'cp') return { kind: 'cp', n: -score.n };
  if (score.kind === 'win') return { kind: 'loss', n: score.n };
  if (score.kind === 'loss') return { kind: 'win', n: score.n };
  return score;
}

/**
 * A database-found win is `win 500+N`: its length is not known (the engine's
 * DB_WIN_PLIES; a test of kingme-web checks that they agree).
 */
export const DB_PLIES = 500;

/** Words for an exact score of `side` (`win N` from side's view), or null when not exact. */
export function exactText(score, side) {
  if (!score) return null;
  if (score.kind === 'draw') return 'draw with perfect play';
  if (score.kind !== 'win' && score.kind !== 'loss') return null;
  const winner = COLOR_NAME[score.kind === 'win' ? side : other(side)];
  if (score.n >= DB_PLIES) return `${winner} wins (database)`;
  return `${winner} wins in ${score.n} ${score.n === 1 ? 'ply' : 'plies'}`;
}

/** A score in words, from the view of the side it belongs to. */
export function scoreText(score) {
  if (!score) return '–';
  if (score.kind === 'cp') return `${score.n > 0 ? '+' : ''}${(score.n / 100).toFixed(2)}`;
  if (score.kind === 'draw') return 'draw';
  const db = score.n >= DB_PLIES;
  if (score.kind === 'win') return db ? 'wins (db)' : `wins in ${score.n}`;
  return db ? 'loses (db)' : `loses in ${score.n}`;
}

/** The game's result for a record: the rules' verdict at its end, else `ended`, else `*`. */
export function gameResult(finalOver) {
  const o = finalOver || S.ended;
  return o ? o.result : '*';
}
