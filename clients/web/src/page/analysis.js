// The analysis panel: the engine's best lines with their scores, live while it
// searches (one per `multipv` index; an engine without MultiPV sends one), the
// exact value of the position when the engine knows it, and the legal moves
// with their exact values when known.
import { S, COLOR_NAME, exactText, scoreText } from './game.js';

const $ = (id) => document.getElementById(id);

/** The exact value of the position shown (side to move's view), or null. */
export function positionExact() {
  if (S.database === 'win') return { text: `${COLOR_NAME[S.turn]} wins (database)`, kind: 'win' };
  if (S.database === 'loss') return { text: `${COLOR_NAME[S.turn === 'B' ? 'W' : 'B']} wins (database)`, kind: 'loss' };
  if (S.database === 'draw') return { text: 'draw with perfect play (database)', kind: 'draw' };
  const best = S.lines.get(1);
  const text = best && exactText(best.score, S.turn);
  if (text) return { text, kind: best.score.kind };
  return null;
}

export function renderAnalysis() {
  const ex = positionExact();
  const badge = $('exact');
  badge.textContent = ex ? ex.text : '';
  badge.hidden = !ex;
  badge.dataset.kind = ex ? ex.kind : '';

  const list = $('pvlines');
  list.textContent = '';
  const lines = [...S.lines.values()].sort((a, b) => a.multipv - b.multipv);
  for (const info of lines) {
    const li = document.createElement('li');
    li.className = 'pv-line';
    li.dataset.multipv = String(info.multipv);
    const score = document.createElement('span');
    score.className = 'pv-score';
    score.textContent = scoreText(info.score);
    const ex2 = exactText(info.score, S.turn);
    if (ex2) { score.classList.add('exact'); score.title = ex2; }
    const depth = document.createElement('span');
    depth.className = 'pv-depth';
    depth.textContent = `d${info.depth ?? '?'}`;
    const pv = document.createElement('span');
    pv.className = 'pv-moves';
    pv.textContent = (info.pv || []).join(' ');
    li.append(score, depth, pv);
    list.appendChild(li);
  }
  $('analysis-when').textContent = S.analysing ? `analysing, ${COLOR_NAME[S.turn]} to move` : S.thinking ? 'kingme is thinking' : '';

  const mv = $('movevalues');
  mv.textContent = '';
  for (const m of S.legal) {
    const li = document.createElement('li');
    li.textContent = m.text;
    li.dataset.move = m.text;
    const v = S.values.get(m.text);
    // A move's exact value: from the `values` line, else an exact score of a line starting with it.
    const fromLine = [...S.lines.values()].find((i) => i.pv && i.pv[0] === m.text && i.score && i.score.kind !== 'cp');
    const known = v || (fromLine && fromLine.score);
    const text = known && exactText(known, S.turn);
    if (text) {
      const b = document.createElement('span');
      b.className = 'badge';
      b.textContent = text;
      li.append(' ', b);
    }
    mv.appendChild(li);
  }
}
