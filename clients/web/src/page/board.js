// Board drawing: the SVG squares and pieces of the position shown, the
// highlights of the move being entered, a review's better move (an arrow),
// and square geometry for the keyboard.
import { S, COLOR_NAME, humanToMove } from './game.js';
import { parseMove } from './protocol.js';
import { reviewHint } from './review.js';

export const SVG = 'http://www.w3.org/2000/svg';
const CELL = 100;

export const squareOf = (n) => {
  const half = S.size / 2;
  const row = Math.floor((n - 1) / half);
  const idx = (n - 1) % half;
  return { row, col: row % 2 === 0 ? 2 * idx + 1 : 2 * idx };
};
export const numberAt = (row, col) => ((row + col) % 2 === 1 ? row * (S.size / 2) + Math.floor(col / 2) + 1 : null);
// Black starts at the top; by default the person's side is at the bottom.
const isFlipped = () => (S.human === 'B') !== S.flipped;
export const toView = ({ row, col }) => (isFlipped() ? { row: S.size - 1 - row, col: S.size - 1 - col } : { row, col });
export const fromView = toView; // the flip is its own inverse

export const squares = new Map(); // number -> { g, piece }
let hints = null; // the layer of arrows over the pieces

export function el(name, attrs, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

/** Draws the empty board; handlers: click(num), key(event, num). */
export function buildBoard(handlers) {
  const svg = document.getElementById('board');
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
      g.addEventListener('click', () => handlers.click(num));
      g.addEventListener('keydown', (e) => handlers.key(e, num));
      squares.set(num, { g, piece });
    }
  }
  const defs = el('defs', {}, svg);
  for (const kind of ['best', 'played']) {
    const m = el('marker', { id: `arrowhead-${kind}`, viewBox: '0 0 10 10', refX: 5, refY: 5, markerWidth: 4, markerHeight: 4, orient: 'auto-start-reverse' }, defs);
    el('path', { d: 'M0 0 L10 5 L0 10 Z', class: `arrowhead ${kind}` }, m);
  }
  hints = el('g', { class: 'hints' }, svg);
  if (!squares.has(S.focus)) S.focus = firstFocus();
  if (hadFocus) squares.get(S.focus).g.focus();
}

function firstFocus() {
  const movable = S.legal.filter((m) => !m.pass).map((m) => m.path[0]);
  return movable.length ? Math.min(...movable) : 1;
}

/** Moves still possible given the squares clicked so far. */
export function candidates() {
  if (!S.selected.length) return [];
  return S.legal.filter((m) => !m.pass && S.selected.every((s, i) => m.path[i] === s));
}

/** Puts the pieces of the position shown and the highlights on the squares. */
export function renderBoard() {
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
  const hint = reviewHint();
  const better = hint ? parseMove(hint.best) : null;
  const betterSquares = new Set(better ? better.path : []);
  drawHints(hint);
  const last = S.ply > 0 ? parseMove(S.history[S.ply - 1].text) : null;
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
    g.classList.toggle('hint', betterSquares.has(num));
    g.setAttribute('tabindex', num === S.focus ? '0' : '-1');
    let label = `square ${num}`;
    if (p) label += `, ${COLOR_NAME[p.color].toLowerCase()} ${p.king ? 'king' : 'man'}`;
    if (next.has(num)) label += ', legal destination';
    if (betterSquares.has(num)) label += `, on the better move ${hint.best}`;
    if (k > 0 && num === S.selected[0]) label += ', selected';
    else if (movable.has(num) && !k) label += mustCapture ? ', can capture' : ', can move';
    g.setAttribute('aria-label', label);
  }
  return { mustCapture, myTurn };
}

/** The centre of square `n` on the drawing. */
function centre(n) {
  const v = toView(squareOf(n));
  return { x: v.col * CELL + 50, y: v.row * CELL + 50 };
}

/** An arrow along a move's squares (from, then each landing). */
function arrow(move, kind) {
  const m = parseMove(move);
  if (m.pass || m.path.length < 2) return;
  const pts = m.path.map(centre);
  el('polyline', {
    points: pts.map((p) => `${p.x},${p.y}`).join(' '),
    class: `hint-arrow ${kind}`,
    'data-move': move,
    'marker-end': `url(#arrowhead-${kind})`,
  }, hints);
}

/** The chosen review mark's moves: the one played (thin) and the better one. */
function drawHints(hint) {
  if (!hints) return;
  hints.textContent = '';
  if (!hint) return;
  if (hint.played !== hint.best) arrow(hint.played, 'played');
  arrow(hint.best, 'best');
}
