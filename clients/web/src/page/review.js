// The review panel: the Review button and its time, the progress while the
// engine judges the game's moves (`review`, protocol/PROTOCOL.md), each side's
// figures from `reviewdone`, and the mark chosen: its move, the better move,
// the line the engine expected. Also what the graph, the move list and the
// board draw of a review: the marks (inaccuracy ?!, mistake ?, blunder ??,
// in the mover's colour) and the better move of the mark chosen.
import { S, COLOR_NAME, firstToMove, reviewable, scoreText } from './game.js';

const $ = (id) => document.getElementById(id);

/** The mark of each verdict worth one: inaccuracy, mistake, blunder. */
export const GLYPH = { inaccuracy: '?!', mistake: '?', blunder: '??' };

/** The judged moves that get a mark, in game order. */
export function marks() {
  if (!S.review) return [];
  return [...S.review.entries.values()].filter((e) => GLYPH[e.verdict]).sort((a, b) => a.ply - b.ply);
}

/** The judged move `index` (0: the game's first move) when it has a mark, else null. */
export function markAt(index) {
  const e = S.review && S.review.entries.get(index);
  return e && GLYPH[e.verdict] ? e : null;
}

/** Move `index` as a record writes it: `5. 14-9` for Black, `5... 14-9` for White. */
export function moveLabel(index, move) {
  const first = firstToMove();
  const number = first === 'B' ? Math.floor(index / 2) + 1 : Math.floor((index + 1) / 2) + 1;
  const mover = (index % 2 === 0) === (first === 'B') ? 'B' : 'W';
  return `${number}${mover === 'B' ? '.' : '...'} ${move}`;
}

/** A mark's words (a tooltip): the move, whose and what it was, the better move, the note. */
export function markTitle(e) {
  let t = `${moveLabel(e.ply, e.move)}${GLYPH[e.verdict]} ${COLOR_NAME[e.side]}'s ${e.verdict} (loss ${e.loss.toFixed(3)}); better ${e.best}`;
  if (e.note) t += `: ${e.note}`;
  return t;
}

/** The better move to draw on the board: the chosen mark's, at the position before its move. */
export function reviewHint() {
  const r = S.review;
  if (!r || r.selected === null || r.selected !== S.ply) return null;
  const e = r.entries.get(r.selected);
  return e ? { best: e.best, played: e.move } : null;
}

/** A review limit (`movetime 300`) in the words of its choice in the page (`0.3 s`). */
function limitWords(limit) {
  const choice = [...$('review-limit').options].find((o) => o.value === limit);
  return choice ? choice.textContent.replace(/ \(.*\)$/, '') : limit;
}

const VERDICT_ROWS = ['inaccuracy', 'mistake', 'blunder', 'good', 'best'];

/** Draws the review panel from S. */
export function renderReview() {
  const r = S.review;
  $('review-start').disabled = !reviewable();
  $('review-limit').disabled = S.reviewing;
  $('review-cancel').hidden = !S.reviewing;
  const judged = r ? r.entries.size : 0;
  $('review-progress-box').hidden = !r;
  if (r) {
    const bar = $('review-progress');
    bar.max = r.moves;
    bar.value = judged;
    const words = {
      running: `Reviewing ${judged}/${r.moves}`,
      complete: `Reviewed ${r.moves} ${r.moves === 1 ? 'move' : 'moves'}`,
      stopped: `Stopped: ${judged} of ${r.moves} moves judged`,
      refused: 'No review',
    };
    $('review-count').textContent = words[r.state];
  }
  $('review-when').textContent = r ? `${limitWords(r.limit)} a move` : '';
  document.body.dataset.review = r ? r.state : 'none';

  const figures = $('review-figures');
  figures.hidden = !(r && r.done);
  if (r && r.done) {
    for (const side of ['B', 'W']) {
      const f = r.done[side];
      const row = figures.querySelector(`tr[data-side="${side}"]`);
      const cell = (k) => row.querySelector(`[data-k="${k}"]`);
      cell('moves').textContent = String(f.moves);
      cell('avg').textContent = f.moves ? (f.lost / f.moves).toFixed(3) : '–';
      cell('avg').title = `${f.lost.toFixed(4)} of the expected result lost in ${f.moves} ${f.moves === 1 ? 'move' : 'moves'}`;
      for (const k of VERDICT_ROWS) cell(k).textContent = String(f[k]);
    }
  }

  const detail = $('review-detail');
  const e = r && r.selected !== null ? r.entries.get(r.selected) : null;
  detail.hidden = !e;
  if (e) {
    const glyph = GLYPH[e.verdict] || '';
    const view = `${COLOR_NAME[e.side]}'s view`;
    $('rd-move').textContent = `${moveLabel(e.ply, e.move)}${glyph}`;
    $('rd-move').dataset.side = e.side;
    $('rd-verdict').textContent = `${COLOR_NAME[e.side]}'s ${e.verdict}, loss ${e.loss.toFixed(3)}${e.exact ? ' (exact)' : ''}`;
    $('rd-best').textContent = `${e.best} (${scoreText(e.score)}; the move played ${scoreText(e.played)}, ${view})`;
    $('rd-pv').textContent = e.pv.join(' ');
    $('rd-note').textContent = e.note || '';
    $('rd-note').hidden = !e.note;
  }
}
