// Game records as PDN, in the referee's conventions (clients/referee/src/pdn.rs):
// tags, then moves numbered from Black's first move (`1... 22-18` when White
// starts), results Black's score first (`2-0`, `0-2`, `1-1`, `*`), GameType 21
// for English and 99 (with Variant "mini") for mini-checkers. Pure functions:
// node unit-tests them.

export const GAME_TYPE = { english: '21', mini: '99' };
const RESULTS = ['2-0', '0-2', '1-1', '1-0', '0-1', '1/2-1/2', '*'];

/** A malformed record: `message` says what and where. */
export class PdnError extends Error {}

const quote = (v) => '"' + String(v).replace(/[\u0000-\u001f\u007f]/g, '').replace(/["\\]/g, '\\$&') + '"';

/** A date as PDN writes it: `YYYY.MM.DD`. */
export function pdnDate(d = new Date()) {
  const p = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}.${p(d.getMonth() + 1)}.${p(d.getDate())}`;
}

/** The movetext: numbered from Black's first move, wrapped near 80 columns, ending in the result. */
export function movetext(firstToMove, moves, result) {
  const tokens = [];
  let number = 0;
  moves.forEach((m, i) => {
    const black = (i % 2 === 0) === (firstToMove === 'B');
    if (black) tokens.push(`${++number}. ${m}`);
    else if (i === 0) tokens.push(`${++number}... ${m}`);
    else tokens.push(m);
  });
  tokens.push(result);
  let out = '';
  let col = 0;
  for (const t of tokens) {
    if (col > 0 && col + 1 + t.length > 79) { out += '\n'; col = 0; } else if (col > 0) { out += ' '; col++; }
    out += t;
    col += t.length;
  }
  return out + '\n';
}

/**
 * One game as PDN. game: { event, date, black, white, result, variant,
 * fen (null from the start), moves, termination? }.
 */
export function writePdn(game) {
  const tags = [
    ['Event', game.event || 'kingme web board'],
    ['Site', game.site || 'kingme-web'],
    ['Date', game.date || pdnDate()],
    ['Black', game.black],
    ['White', game.white],
    ['Result', game.result],
    ['GameType', GAME_TYPE[game.variant] || GAME_TYPE.english],
  ];
  if (game.fen) tags.push(['FEN', game.fen]);
  if (game.variant === 'mini') tags.push(['Variant', 'mini']);
  if (game.termination) tags.push(['Termination', game.termination]);
  const first = game.fen ? game.fen.trim()[0].toUpperCase() : 'B';
  return tags.map(([k, v]) => `[${k} ${quote(v)}]\n`).join('') + '\n' + movetext(first, game.moves, game.result) + '\n';
}

/**
 * Reads the first game of a PDN text: tags, movetext (move numbers,
 * `{comments}`, `;` comments and `(variations)` skipped) and the result.
 * Returns { tags: Map (lower-case names), moves, result }; throws PdnError.
 */
export function parsePdn(text) {
  const tags = new Map();
  const moves = [];
  let result = null;
  let line = 1;
  let i = 0;
  let inMoves = false;
  const fail = (m) => { throw new PdnError(`PDN line ${line}: ${m}`); };
  const n = text.length;
  while (i < n) {
    const c = text[i];
    if (c === '\n') { line++; i++; continue; }
    if (/\s/.test(c)) { i++; continue; }
    if (c === '[') {
      if (inMoves || result !== null) break; // the next game starts
      i++;
      const start = i;
      while (i < n && !/\s/.test(text[i]) && text[i] !== ']') i++;
      const name = text.slice(start, i);
      while (text[i] === ' ' || text[i] === '\t') i++;
      if (text[i] !== '"') fail(`expected a quoted value after [${name}`);
      i++;
      let value = '';
      for (;;) {
        const ch = text[i];
        if (ch === undefined || ch === '\n') fail(`unterminated value of tag ${name}`);
        if (ch === '\\') { if (i + 1 < n) value += text[i + 1]; i += 2; continue; }
        if (ch === '"') { i++; break; }
        value += ch;
        i++;
      }
      while (text[i] === ' ' || text[i] === '\t') i++;
      if (text[i] !== ']') fail(`expected ']' after the value of tag ${name}`);
      i++;
      if (!name) fail('empty tag name');
      tags.set(name.toLowerCase(), value);
      continue;
    }
    if (c === '{') {
      while (i < n && text[i] !== '}') { if (text[i] === '\n') line++; i++; }
      if (i === n) fail('unterminated {comment}');
      i++;
      continue;
    }
    if (c === ';') { while (i < n && text[i] !== '\n') i++; continue; }
    if (c === '(') {
      let depth = 0;
      while (i < n) {
        const ch = text[i];
        if (ch === '(') depth++;
        else if (ch === ')') depth--;
        else if (ch === '\n') line++;
        i++;
        if (depth === 0) break;
      }
      if (depth !== 0) fail('unterminated (variation)');
      continue;
    }
    if (result !== null) break; // text after the result: a second game
    inMoves = true;
    const start = i;
    while (i < n && !/\s/.test(text[i]) && !'{([;'.includes(text[i])) i++;
    const token = text.slice(start, i);
    if (RESULTS.includes(token)) { result = token; continue; }
    const m = token.match(/^(\d+)(\.+)(.*)$/);
    const mv = m ? m[3] : token;
    if (!mv) continue;
    if (!/^pass$/i.test(mv) && !/^\d+([-xX:]\d+)+$/.test(mv)) fail(`'${mv}' is not a move (expected like 11-15, 22x15x8 or pass)`);
    moves.push(/^pass$/i.test(mv) ? 'pass' : mv.replace(/X/g, 'x').replace(/:/g, 'x'));
  }
  if (!tags.size && !moves.length) fail('no game found (expected [Tags] and moves like 1. 11-15 22-18)');
  return { tags, moves, result };
}

/** The variant of a parsed PDN game; throws PdnError for a GameType we don't play. */
export function pdnVariant(game) {
  const v = (game.tags.get('variant') || '').toLowerCase();
  if (v === 'mini' || v === 'english') return v;
  const type = (game.tags.get('gametype') || '21').split(',')[0].trim();
  if (type === GAME_TYPE.mini) return 'mini';
  if (type === GAME_TYPE.english) return 'english';
  throw new PdnError(`GameType ${type} is not a game kingme plays (21: English checkers, 99: mini-checkers)`);
}

/**
 * What a person pasted or loaded: a PDN game, or a FEN optionally followed by
 * moves (`B:W21-32:B1-12 11-15 22-18`, or `... moves 11-15`). Returns
 * { variant (null: keep the current one), fen, moves, result, tags }.
 */
export function parseGameText(text) {
  const t = text.trim();
  if (!t) throw new PdnError('Nothing to load: paste a PDN game or a FEN (and moves).');
  if (/^[BW]:/i.test(t)) {
    const words = t.split(/\s+/);
    const fen = words[0];
    if (!/^[BW](:[BW](K?\d+(-\d+)?(,K?\d+(-\d+)?)*)?)*\.?$/i.test(fen)) throw new PdnError(`'${fen}' is not a FEN (expected like B:W21-32:B1-12)`);
    const rest = words.slice(1).filter((w) => w !== 'moves');
    const g = rest.length ? parsePdn(rest.join(' ')) : { tags: new Map(), moves: [], result: null };
    return { variant: null, fen, moves: g.moves, result: g.result, tags: new Map() };
  }
  const g = parsePdn(t);
  return { variant: pdnVariant(g), fen: g.tags.get('fen') || null, moves: g.moves, result: g.result, tags: g.tags };
}
