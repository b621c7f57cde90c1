// The evaluation graph under the board: one point per position the engine
// searched (Black's view: up is good for Black), scores clamped to ±CLAMP
// centi-men, exact wins and losses drawn on the limits, exact draws on the
// middle line; the position shown is marked; clicking goes to a position.
// A review's marks sit on the position after their move, in the mover's
// colour, sized by the verdict; clicking one chooses it.
import { S, toBlack } from './game.js';
import { el } from './board.js';
import { GLYPH, marks, markTitle } from './review.js';

const W = 600;
const H = 120;
const PAD = 8;
export const CLAMP = 400;

/** Black's-view score -> y (top: Black winning). */
function yOf(score) {
  let v;
  if (score.kind === 'win') v = CLAMP;
  else if (score.kind === 'loss') v = -CLAMP;
  else if (score.kind === 'draw') v = 0;
  else v = Math.max(-CLAMP, Math.min(CLAMP, score.n));
  return H / 2 - (v / CLAMP) * (H / 2 - PAD);
}

const exact = (s) => s.kind !== 'cp';

function label(p, s) {
  const v = s.kind === 'cp' ? `${s.n > 0 ? '+' : ''}${(s.n / 100).toFixed(2)}` : s.kind === 'draw' ? 'draw' : `Black ${s.kind === 'win' ? 'wins' : 'loses'}${s.n >= 500 ? ' (database)' : ` in ${s.n}`}`;
  return `after ${p} ${p === 1 ? 'move' : 'moves'}: ${v} (Black's view)`;
}

/** A mark's radius: bigger for a worse move. */
const MARK_R = { inaccuracy: 7, mistake: 9, blunder: 11 };

/**
 * Draws the graph; goTo(ply) is called when a point (or the graph near one)
 * is clicked, onMark(index) when the mark of move `index` is.
 */
export function renderGraph(goTo, onMark) {
  const svg = document.getElementById('graph');
  svg.textContent = '';
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  const n = Math.max(S.history.length, 1);
  const xOf = (p) => PAD + (p * (W - 2 * PAD)) / n;
  el('rect', { x: 0, y: 0, width: W, height: H / 2, class: 'g-black' }, svg);
  el('rect', { x: 0, y: H / 2, width: W, height: H / 2, class: 'g-white' }, svg);
  el('line', { x1: 0, y1: H / 2, x2: W, y2: H / 2, class: 'g-zero' }, svg);
  el('line', { x1: xOf(S.ply), y1: 0, x2: xOf(S.ply), y2: H, class: 'g-cursor' }, svg);
  const pts = [...S.evals.entries()].filter(([p]) => p <= S.history.length).sort((a, b) => a[0] - b[0]);
  if (pts.length > 1) {
    el('polyline', { points: pts.map(([p, s]) => `${xOf(p)},${yOf(s)}`).join(' '), class: 'g-line' }, svg);
  }
  for (const [p, s] of pts) {
    const attrs = { 'data-ply': p, class: 'pt' + (exact(s) ? ' exact' : '') + (p === S.ply ? ' current' : ''), role: 'button' };
    const c = exact(s)
      ? el('rect', { ...attrs, x: xOf(p) - 5, y: yOf(s) - 5, width: 10, height: 10 }, svg)
      : el('circle', { ...attrs, cx: xOf(p), cy: yOf(s), r: 5 }, svg);
    const t = el('title', {}, c);
    t.textContent = label(p, s);
    c.addEventListener('click', (e) => { e.stopPropagation(); goTo(p); });
  }
  const shown = marks().filter((m) => m.ply < S.history.length);
  for (const m of shown) {
    const after = S.evals.get(m.ply + 1) || toBlack(m.played, m.side);
    const r = MARK_R[m.verdict];
    const x = xOf(m.ply + 1);
    const y = Math.max(r + 1, Math.min(H - r - 1, yOf(after)));
    const selected = S.review.selected === m.ply;
    const g = el('g', {
      class: `mark side-${m.side} ${m.verdict}${selected ? ' selected' : ''}`,
      'data-index': m.ply, 'data-side': m.side, 'data-verdict': m.verdict, role: 'button',
    }, svg);
    el('circle', { cx: x, cy: y, r }, g);
    const glyph = el('text', { x, y: y + 0.5, 'text-anchor': 'middle', 'dominant-baseline': 'middle' }, g);
    glyph.textContent = GLYPH[m.verdict];
    el('title', {}, g).textContent = markTitle(m);
    g.addEventListener('click', (e) => { e.stopPropagation(); onMark(m.ply); });
  }
  svg.onclick = (e) => {
    const ctm = svg.getScreenCTM();
    if (!ctm) return;
    const pt = svg.createSVGPoint();
    pt.x = e.clientX;
    pt.y = e.clientY;
    const x = pt.matrixTransform(ctm.inverse()).x;
    goTo(Math.max(0, Math.min(S.history.length, Math.round(((x - PAD) * n) / (W - 2 * PAD)))));
  };
  svg.dataset.points = String(pts.length);
  svg.dataset.marks = String(shown.length);
}
