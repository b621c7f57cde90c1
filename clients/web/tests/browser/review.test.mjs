// The Review button: the engine judges every move of a loaded game (`review`,
// protocol/PROTOCOL.md), the page marks the bad moves on the graph and in the
// move list, gives each side's figures, and a mark clicked shows the position
// before its move with the better move drawn and the line the engine expected.
// The reviews use a node limit (the same every run). Run from this folder like
// board.test.mjs:
//   KINGME_WEB_BIN=$PWD/../../../../target/debug/kingme-web node --test review.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { here, SHOTS, useBrowser, drawnPieces, fenPieces, engineFen } from './harness.mjs';

let baseUrl;
let context;
useBrowser((b) => ({ baseUrl, context } = b));

// The English fixture's moves: White's 14-9 (move index 11) leaves a man to 5x14.
const ENGLISH = ['11-15', '22-18', '15x22', '25x18', '9-13', '18-14', '10x17', '21x14', '12-16', '24-19', '16-20', '14-9', '5x14'];
// The mini fixture's moves: Black's 5-8 (index 4) turns a draw into a loss, which the solved table knows.
const MINI = ['5-7', '15-12', '1-5', '13-10', '5-8', '12x5', '6-9', '16-13', '9-12', '14x9', '2-6', '9x2'];
const GLYPH = { inaccuracy: '?!', mistake: '?', blunder: '??' };

/** Opens the board, loads a fixture file and waits for it to be shown. */
async function openWith(params, fixture) {
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(baseUrl + '?' + new URLSearchParams(params).toString());
  await page.waitForFunction(() => ['human', 'review'].includes(document.body.dataset.status));
  assert.ok(await page.isDisabled('#review-start'), 'a new game without moves has nothing to review');
  await page.setInputFiles('#pdn-file', path.join(here, 'fixtures', fixture));
  await page.waitForFunction(() => document.getElementById('pdn-msg').dataset.kind === 'ok' && !['busy', 'thinking'].includes(document.body.dataset.status));
  return { page, errors };
}

/** The protocol log's lines the engine sent that start with `prefix`. */
async function received(page, prefix) {
  const log = await page.textContent('#log');
  return log.split('\n').filter((l) => l.startsWith('< ' + prefix)).map((l) => l.slice(2));
}

/** A `review` line's fields, read here with a regular expression of the test's own. */
function reviewFields(line) {
  const m = line.match(/^review ply (\d+) by (?:black|white) move (\S+) verdict (\S+) loss (\S+) best (\S+) .* pv ((?:(?!note)\S+ ?)+)(?: note (.*))?$/);
  assert.ok(m, line);
  return { index: Number(m[1]), move: m[2], verdict: m[3], loss: Number(m[4]), best: m[5], pv: m[6].trim(), note: m[7] || null };
}

/** Presses Review with `limit` and waits for the engine's reviewdone. */
async function review(page, limit) {
  await page.selectOption('#review-limit', limit);
  assert.ok(await page.isEnabled('#review-start'), 'a loaded game can be reviewed');
  await page.click('#review-start');
  await page.waitForFunction(() => document.body.dataset.review === 'complete' && document.body.dataset.status !== 'busy', null, { timeout: 20000 });
}

const pathOf = (m) => m.split(/[-x]/).map(Number);

test('Review marks the bad moves on the graph and in the move list, with each side\'s figures; a mark shows the better move', async () => {
  const { page, errors } = await openWith({ variant: 'english', color: 'B', level: 'easy' }, 'review-english.pdn');
  assert.equal(await page.getAttribute('#graph', 'data-marks'), '0');
  await review(page, 'nodes 20000');
  const log = await page.textContent('#log');
  const sent = log.split('\n').filter((l) => l.startsWith('> ') && l !== '> isready');
  const at = sent.indexOf('> review nodes 20000');
  assert.equal(sent[at - 1], `> position startpos moves ${ENGLISH.join(' ')}`, 'the whole game, then review');

  // One review line per move, and each bad one marked in its mover's colour (Black moves at even indices).
  const lines = (await received(page, 'review ply')).map(reviewFields);
  assert.deepEqual(lines.map((l) => l.index).sort((a, b) => a - b), ENGLISH.map((_, i) => i));
  const bad = lines.filter((l) => GLYPH[l.verdict]).sort((a, b) => a.index - b.index);
  const hang = bad.find((l) => l.index === 11);
  assert.ok(hang && hang.verdict === 'blunder', `14-9 leaves a man hanging: ${JSON.stringify(lines.find((l) => l.index === 11))}`);
  const want = bad.map((l) => `${l.index} ${l.index % 2 === 0 ? 'B' : 'W'} ${l.verdict} ${GLYPH[l.verdict]}`);
  const onGraph = await page.$$eval('#graph .mark', (ms) => ms.map((m) => `${m.dataset.index} ${m.dataset.side} ${m.dataset.verdict} ${m.querySelector('text').textContent}`));
  assert.deepEqual(onGraph, want);
  const inList = await page.$$eval('#movelist .rv-mark', (ms) => ms.map((m) => `${m.dataset.index} ${m.classList.contains('side-B') ? 'B' : 'W'} ${m.dataset.verdict} ${m.textContent}`));
  assert.deepEqual(inList, want);
  // A mark sits in the cell of its move.
  assert.equal(await page.textContent('#movelist td[data-ply="12"] .rv-mark'), '??');
  // Black's marks and White's look different; a blunder's is bigger than a mistake's.
  const look = await page.$$eval('#graph .mark', (ms) => ms.map((m) => {
    const c = m.querySelector('circle');
    return { side: m.dataset.side, verdict: m.dataset.verdict, fill: getComputedStyle(c).fill, stroke: getComputedStyle(c).stroke, r: Number(c.getAttribute('r')) };
  }));
  const fills = new Map(look.map((l) => [l.side, l.fill]));
  assert.equal(fills.size, 2, 'both sides have marks (Black\'s 12-16 loses a man too)');
  assert.notEqual(fills.get('B'), fills.get('W'));
  for (const a of look) {
    for (const b of look) {
      if (a.verdict === 'blunder' && b.verdict !== 'blunder') {
        assert.ok(a.r > b.r, 'a blunder\'s mark is the bigger');
        assert.notEqual(a.stroke, b.stroke);
      }
    }
  }

  // Each side's figures are the reviewdone line's.
  const [done] = await received(page, 'reviewdone');
  const m = done.match(/^reviewdone complete black moves (\d+) lost (\S+) best (\d+) good (\d+) inaccuracy (\d+) mistake (\d+) blunder (\d+) white moves (\d+) lost (\S+) best (\d+) good (\d+) inaccuracy (\d+) mistake (\d+) blunder (\d+)$/);
  assert.ok(m, done);
  for (const [side, at] of [['B', 1], ['W', 8]]) {
    const cell = (k) => page.textContent(`#review-figures tr[data-side="${side}"] [data-k="${k}"]`);
    assert.equal(await cell('moves'), m[at]);
    assert.equal(await cell('avg'), (Number(m[at + 1]) / Number(m[at])).toFixed(3));
    assert.equal(await cell('best'), m[at + 2]);
    assert.equal(await cell('good'), m[at + 3]);
    assert.equal(await cell('inaccuracy'), m[at + 4]);
    assert.equal(await cell('mistake'), m[at + 5]);
    assert.equal(await cell('blunder'), m[at + 6]);
  }
  assert.equal(Number(m[8]), 6);
  assert.ok(Number(m[14]) >= 1, 'White blundered at least once');
  assert.match(await page.textContent('#review-count'), /^Reviewed 13 moves$/);
  assert.equal(await page.textContent('#review-when'), '20,000 nodes a move');
  assert.equal(await page.getAttribute('#graph', 'data-points'), '14', 'the review scored every position');

  // The mark of 14-9: the position before it, the better move drawn, the line expected.
  await page.click('#graph .mark[data-index="11"]');
  await page.waitForFunction(() => document.body.dataset.ply === '11' && document.body.dataset.status !== 'busy');
  const fen = await engineFen(page, ['newgame english', `position startpos moves ${ENGLISH.slice(0, 11).join(' ')}`]);
  assert.equal(await drawnPieces(page), fenPieces(fen));
  assert.equal(await page.evaluate(() => window.kingme.S.fen), fen);
  assert.equal(await page.getAttribute('#board .hint-arrow.best', 'data-move'), hang.best);
  assert.equal(await page.getAttribute('#board .hint-arrow.played', 'data-move'), '14-9');
  const hinted = await page.$$eval('#board .sq.hint', (gs) => gs.map((g) => Number(g.dataset.square)).sort((a, b) => a - b));
  assert.deepEqual(hinted, [...new Set(pathOf(hang.best))].sort((a, b) => a - b));
  assert.equal(await page.textContent('#rd-pv'), hang.pv);
  assert.equal(await page.textContent('#rd-move'), '6... 14-9??');
  assert.match(await page.textContent('#rd-verdict'), /^White's blunder, loss /);
  assert.match(await page.textContent('#rd-best'), new RegExp(`^${hang.best} \\(`));
  assert.equal(await page.getAttribute('#graph .mark[data-index="11"]', 'class'), 'mark side-W blunder selected');
  await page.screenshot({ path: path.join(SHOTS, 'review-english.png'), fullPage: true });

  // Stepping on leaves the position of the mark: no arrow there.
  await page.click('#next-ply');
  await page.waitForFunction(() => document.body.dataset.ply === '12' && document.body.dataset.status !== 'busy');
  assert.equal(await page.locator('#board .hint-arrow').count(), 0);
  assert.deepEqual(errors, []);
  await page.close();
});

test('an exact verdict (mini, the solved table) has its note; a mark in the move list chooses it', async () => {
  const { page, errors } = await openWith({ variant: 'mini', color: 'B', level: 'easy', mode: 'analyse' }, 'review-mini.pdn');
  await review(page, 'nodes 20000');
  const lines = (await received(page, 'review ply')).map(reviewFields);
  const thrown = lines.find((l) => l.index === 4);
  assert.equal(thrown.verdict, 'blunder');
  assert.equal(thrown.note, 'turned a draw into a loss');
  const mark = '#movelist .rv-mark[data-index="4"]';
  assert.match(await page.getAttribute(mark, 'title'), /turned a draw into a loss$/);
  await page.click(mark);
  await page.waitForFunction(() => document.body.dataset.ply === '4' && document.body.dataset.status !== 'busy');
  const fen = await engineFen(page, ['setoption name Variant value mini', 'newgame mini', `position startpos moves ${MINI.slice(0, 4).join(' ')}`]);
  assert.equal(await drawnPieces(page), fenPieces(fen));
  assert.equal(await page.getAttribute('#board .hint-arrow.best', 'data-move'), thrown.best);
  assert.equal(await page.textContent('#rd-note'), 'turned a draw into a loss');
  assert.ok(await page.isVisible('#rd-note'));
  assert.match(await page.textContent('#rd-verdict'), /\(exact\)$/);
  // Analysis goes on in the position of the mark after the review.
  await page.waitForFunction(() => document.body.dataset.analysing === 'true', null, { timeout: 10000 });
  await page.screenshot({ path: path.join(SHOTS, 'review-mini.png'), fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
});

test('Cancel stops a review: what was judged keeps its marks, and the board is free again', async () => {
  const { page, errors } = await openWith({ variant: 'english', color: 'B', level: 'easy' }, 'referee-english.pdn');
  const plies = Number(await page.evaluate(() => document.body.dataset.plies));
  assert.ok(plies > 100);
  await page.selectOption('#review-limit', 'movetime 100');
  await page.click('#review-start');
  await page.waitForFunction(() => document.body.dataset.status === 'reviewing');
  assert.ok(await page.isDisabled('#review-start'));
  assert.ok(await page.isVisible('#review-cancel'));
  assert.ok(await page.isDisabled('#next-ply'), 'the position shown stays while reviewing');
  await page.waitForFunction(() => document.getElementById('review-progress').value >= 2, null, { timeout: 10000 });
  assert.match(await page.textContent('#review-count'), new RegExp(`^Reviewing \\d+/${plies}$`));
  await page.click('#review-cancel');
  await page.waitForFunction(() => document.body.dataset.review === 'stopped' && document.body.dataset.status !== 'reviewing' && document.body.dataset.status !== 'busy', null, { timeout: 10000 });
  const log = await page.textContent('#log');
  assert.match(log, /> stop\n[^]*< reviewdone stopped /);
  const judged = (await received(page, 'review ply')).length;
  assert.ok(judged >= 2 && judged < plies, `${judged} of ${plies} judged`);
  assert.equal(await page.textContent('#review-count'), `Stopped: ${judged} of ${plies} moves judged`);
  assert.ok(await page.isHidden('#review-cancel'));
  assert.ok(await page.isEnabled('#review-start'), 'it can be reviewed again');
  await page.click('#next-ply');
  await page.waitForFunction(() => document.body.dataset.ply === '1' && document.body.dataset.status !== 'busy');
  assert.deepEqual(errors, []);
  await page.close();
});
