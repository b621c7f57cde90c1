// Browser tests of the kingme web board, in Debian's headless Chromium driven by
// playwright-core (never a downloaded browser). Run from this folder:
//   npm ci && node --test --test-concurrency=1
// KINGME_WEB_BIN names the kingme-web binary (default: target/debug/kingme-web).
// Screenshots for a person go to target/web-screenshots/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { here, root, SHOTS, startServer, useBrowser, askEngine, drawnPieces, fenPieces, engineFen } from './harness.mjs';

let baseUrl;
let context;
useBrowser((b) => ({ baseUrl, context } = b));

/** Opens the board with URL parameters and waits for the person's turn (or the end). */
async function open(params, viewport) {
  const page = await context.newPage();
  if (viewport) await page.setViewportSize(viewport);
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  // Anything but our own server is a failure: the page loads nothing from elsewhere.
  page.on('request', (r) => {
    if (!r.url().startsWith(baseUrl) && !r.url().startsWith(baseUrl.replace('http', 'ws')) && !r.url().startsWith('data:')) {
      errors.push('external request: ' + r.url());
    }
  });
  await page.goto(baseUrl + '?' + new URLSearchParams(params).toString());
  await settle(page);
  return { page, errors };
}

const status = (page) => page.evaluate(() => document.body.dataset.status);

/** Waits until it is the person's move or the game is over. */
async function settle(page, ms = 20000) {
  await page.waitForFunction(() => ['human', 'over'].includes(document.body.dataset.status), null, { timeout: ms });
}

const squaresWith = (page, cls) => page.$$eval(`.sq.${cls}`, (gs) => gs.map((g) => Number(g.dataset.square)).sort((a, b) => a - b));
const click = (page, n) => page.click(`.sq[data-square="${n}"]`);

/** The legal moves of a position, asked over a WebSocket of its own (not the page's logic). */
async function legalMoves(page, setup) {
  return (await askEngine(page, setup.concat('moves'), 'moves ')).split(' ');
}

const pathOf = (m) => m.split(/[-x]/).map(Number);

test('the highlighted squares of each selectable piece are its legal destinations', async () => {
  const { page, errors } = await open({ variant: 'english', color: 'B', first: 'B', level: 'easy' });
  assert.equal(await status(page), 'human');
  const moves = await legalMoves(page, ['newgame english', 'position startpos']);
  const froms = [...new Set(moves.map((m) => pathOf(m)[0]))].sort((a, b) => a - b);
  assert.deepEqual(await squaresWith(page, 'movable'), froms);
  for (const from of froms) {
    await click(page, from);
    assert.deepEqual(await squaresWith(page, 'selected'), [from]);
    const want = [...new Set(moves.filter((m) => pathOf(m)[0] === from).map((m) => pathOf(m)[1]))].sort((a, b) => a - b);
    assert.deepEqual(await squaresWith(page, 'dest'), want, `destinations of ${from}`);
    if (from === 10) await page.screenshot({ path: path.join(SHOTS, 'english-selected-10.png') });
  }
  // A piece that can't move selects nothing and says so.
  await click(page, 1);
  assert.deepEqual(await squaresWith(page, 'selected'), []);
  assert.match(await page.textContent('#notice'), /no legal move/);

  // A forced capture: only the capturing piece is selectable, and the page says so.
  const fen = 'B:W18,30:B1,14';
  await page.fill('#fen', fen);
  await page.click('#start');
  await settle(page);
  const capMoves = await legalMoves(page, ['newgame english', `position fen ${fen}`]);
  assert.deepEqual(capMoves, ['14x23']);
  assert.deepEqual(await squaresWith(page, 'must-capture'), [14]);
  assert.match(await page.textContent('#status'), /capture is mandatory/);
  await click(page, 1);
  assert.match(await page.textContent('#notice'), /capture is mandatory: move one of 14/);
  await click(page, 14);
  assert.deepEqual(await squaresWith(page, 'dest'), [23]);
  await page.screenshot({ path: path.join(SHOTS, 'english-forced-capture.png') });
  assert.deepEqual(errors, []);
  await page.close();
});

test('an English multi-jump is played by clicking each landing square, or the final one', async () => {
  const fen = 'W:W22,30:B1,3,11,18';
  const { page, errors } = await open({ variant: 'english', color: 'W', fen, level: 'easy' });
  assert.equal(await status(page), 'human');
  assert.deepEqual(await legalMoves(page, ['newgame english', `position fen ${fen}`]), ['22x15x8']);
  await click(page, 22);
  assert.deepEqual(await squaresWith(page, 'dest'), [15]);
  assert.deepEqual(await squaresWith(page, 'final'), [8]);
  await click(page, 15);
  assert.deepEqual(await squaresWith(page, 'path'), [15]);
  assert.deepEqual(await squaresWith(page, 'dest'), [8]);
  await page.screenshot({ path: path.join(SHOTS, 'english-multijump-midway.png') });
  await click(page, 8);
  // The move is played: both black men are gone, the white man stands on 8.
  await page.waitForFunction(() => Number(document.body.dataset.plies) >= 1);
  assert.match(await page.textContent('#movelist'), /22x15x8/);
  await settle(page);
  const board = await page.evaluate(() => [...document.querySelectorAll('.sq.has-piece')].map((g) => `${g.classList.contains('white') ? 'W' : 'B'}${g.dataset.square}`));
  assert.ok(!board.includes('B11') && !board.includes('B18'), `captured men removed: ${board}`);
  await page.screenshot({ path: path.join(SHOTS, 'english-multijump-played.png') });

  // Undo back to the position, then the short way: the final square only.
  await page.click('#undo');
  await settle(page);
  assert.equal(await page.evaluate(() => document.body.dataset.plies), '0');
  await click(page, 22);
  await click(page, 8);
  await page.waitForFunction(() => Number(document.body.dataset.plies) >= 1);
  assert.match(await page.textContent('#movelist'), /22x15x8/);
  await settle(page);
  // The engine answered, and its statistics are shown.
  assert.equal(await page.evaluate(() => document.body.dataset.plies), '2');
  assert.notEqual(await page.textContent('#st-depth'), '–');
  assert.match(await page.textContent('#st-nodes'), /^[\d,]+$/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('two jump paths to the same square: the final click is refused, the landing squares choose', async () => {
  const fen = 'W:W27,31:B1,15,16,23,24';
  const { page, errors } = await open({ variant: 'english', color: 'W', fen, level: 'easy' });
  assert.deepEqual(await legalMoves(page, ['newgame english', `position fen ${fen}`]), ['27x18x11', '27x20x11']);
  await click(page, 27);
  assert.deepEqual(await squaresWith(page, 'dest'), [18, 20]);
  assert.deepEqual(await squaresWith(page, 'final'), [], 'no single move ends on 11');
  await click(page, 11);
  assert.match(await page.textContent('#notice'), /Several jump paths end there/);
  assert.equal(await page.evaluate(() => document.body.dataset.plies), '0');
  await click(page, 20);
  assert.deepEqual(await squaresWith(page, 'dest'), [11]);
  await click(page, 11);
  await page.waitForFunction(() => Number(document.body.dataset.plies) >= 1);
  assert.match(await page.textContent('#movelist'), /27x20x11/);
  await settle(page);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a full mini game played by clicking ends with a result', async () => {
  const { page, errors } = await open({ variant: 'mini', color: 'B', first: 'B', level: 'easy' });
  assert.equal(await page.evaluate(() => document.body.dataset.variant), 'mini');
  assert.equal(await page.locator('.sq').count(), 18);
  let clicks = 0;
  for (let i = 0; i < 60 && (await status(page)) !== 'over'; i++) {
    const movable = await squaresWith(page, 'movable');
    assert.ok(movable.length > 0, 'the person to move has a selectable piece');
    // Vary the game a little: the last selectable piece on odd turns.
    const from = i % 2 ? movable[movable.length - 1] : movable[0];
    await click(page, from);
    const dest = await squaresWith(page, 'dest');
    assert.ok(dest.length > 0, `piece ${from} shows destinations`);
    const plies = Number(await page.evaluate(() => document.body.dataset.plies));
    await click(page, dest[0]);
    clicks += 2;
    await page.waitForFunction((p) => Number(document.body.dataset.plies) > p, plies);
    if (i === 2) {
      await settle(page);
      await page.screenshot({ path: path.join(SHOTS, 'mini-midgame.png') });
    }
    await settle(page);
  }
  assert.equal(await status(page), 'over');
  const result = await page.textContent('#result');
  assert.match(result, /^(2-0|0-2|1-1): .+\(.+\)\. (You win!|kingme wins\.|A draw\.)$/);
  const rows = await page.locator('#movelist tbody tr').count();
  assert.ok(rows >= 3, `a real game (${rows} rows of moves)`);
  assert.notEqual(await page.textContent('#st-depth'), '–', 'statistics after an engine move');
  assert.ok(clicks >= 6);
  await page.screenshot({ path: path.join(SHOTS, 'mini-game-over.png'), fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
});

test('mini: a person with no legal move passes, and a blocked game ends by piece count', async () => {
  // Black's man on 16 is on the far row and can't move; White's man walks up.
  const { page, errors } = await open({ variant: 'mini', color: 'B', fen: 'B:W13:B16', level: 'easy' });
  await page.waitForFunction(() => document.body.dataset.status === 'over', null, { timeout: 20000 });
  const moves = await page.textContent('#movelist tbody');
  assert.match(moves, /pass/);
  assert.match(await page.textContent('#result'), /^1-1: draw \(neither side can move; more pieces wins\)\. A draw\.$/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('live info while the engine thinks, and Move now ends its search', async () => {
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  // The person plays White, Black (kingme, level max: 1 s) moves first, in a
  // position its opening book does not hold (so it searches).
  await page.goto(baseUrl + '?variant=english&color=W&level=max&fen=' + encodeURIComponent('B:W17,21,22,23,25,26,27,29,30,32:B1,2,3,5,6,7,9,10,11,12'));
  await page.waitForFunction(() => document.body.dataset.status === 'thinking');
  await page.waitForFunction(() => document.getElementById('live-info').textContent.startsWith('thinking: depth'));
  await page.screenshot({ path: path.join(SHOTS, 'english-engine-thinking.png') });
  const t = Date.now();
  await page.click('#movenow');
  await settle(page, 5000);
  assert.ok(Date.now() - t < 900, `Move now answered in ${Date.now() - t} ms`);
  assert.equal(await page.evaluate(() => document.body.dataset.plies), '1');
  assert.match(await page.textContent('#st-pv'), /^\d+[-x]\d+/);
  assert.match(await page.textContent('#stats-when'), /^after \d+-\d+$/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the board works from the keyboard: arrows move the focus, Enter selects and moves', async () => {
  const { page, errors } = await open({ variant: 'english', color: 'B', first: 'B', level: 'easy' });
  // Tab reaches the board (one square in the tab order: roving focus).
  assert.equal(await page.locator('.sq[tabindex="0"]').count(), 1);
  await page.focus('.sq[tabindex="0"]');
  const focused = () => page.evaluate(() => Number(document.activeElement.dataset.square));
  assert.equal(await focused(), 9);
  await page.keyboard.press('Enter');
  assert.deepEqual(await squaresWith(page, 'selected'), [9]);
  assert.deepEqual(await squaresWith(page, 'dest'), [13, 14]);
  // Black is at the bottom for a Black player: "up" is towards 13 and 14.
  await page.keyboard.press('ArrowUp');
  assert.ok([13, 14].includes(await focused()), `focus on a destination, not ${await focused()}`);
  const to = await focused();
  await page.screenshot({ path: path.join(SHOTS, 'english-keyboard-focus.png') });
  await page.keyboard.press(' ');
  await page.waitForFunction(() => Number(document.body.dataset.plies) >= 1);
  assert.match(await page.textContent('#movelist'), new RegExp(`9-${to}`));
  await settle(page);
  // Arrow keys never leave the dark squares.
  for (const key of ['ArrowLeft', 'ArrowLeft', 'ArrowDown', 'ArrowRight', 'ArrowUp', 'ArrowUp']) {
    await page.keyboard.press(key);
    const n = await focused();
    assert.ok(n >= 1 && n <= 32, `${key} keeps the focus on a square (${n})`);
  }
  assert.deepEqual(errors, []);
  await page.close();
});

test('flip board, phone-size screen, and white moving first', async () => {
  const { page, errors } = await open({ variant: 'english', color: 'W', first: 'W', level: 'easy' }, { width: 390, height: 844 });
  // White moves first and the person plays White: the person's turn at once.
  assert.equal(await status(page), 'human');
  assert.equal(await page.evaluate(() => document.body.dataset.turn), 'W');
  const box = await page.locator('#board').boundingBox();
  assert.ok(box.width <= 390 && box.width > 300, `the board fits the phone (${box.width} px)`);
  await page.screenshot({ path: path.join(SHOTS, 'phone-english-white.png'), fullPage: true });
  const before = await page.locator('.sq[data-square="1"] rect').first().boundingBox();
  await page.click('#flip');
  const flipped = await page.locator('.sq[data-square="1"] rect').first().boundingBox();
  assert.ok(flipped.y > before.y, 'square 1 moved from the top to the bottom');
  await page.screenshot({ path: path.join(SHOTS, 'phone-english-flipped.png') });
  assert.deepEqual(errors, []);
  await page.close();
});

test('a bad FEN is refused with a message and the start position is used', async () => {
  const { page, errors } = await open({ variant: 'mini', color: 'B', fen: 'B:W99:B1' });
  assert.match(await page.textContent('#notice'), /start position was refused/);
  assert.equal(await page.locator('.sq.has-piece').count(), 12);
  assert.deepEqual(errors.filter((e) => !e.includes('error')), []);
  await page.close();
});

test('a tab closed for idling reconnects, and the game goes on where it was', async () => {
  const idle = await startServer(['--idle-timeout', '2']);
  const page = await context.newPage();
  try {
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(idle.url + '?variant=english&color=B&first=B&level=easy');
    await settle(page);
    await click(page, 11);
    await click(page, 15);
    await page.waitForFunction(() => Number(document.body.dataset.plies) >= 2);
    await settle(page);
    const before = await page.textContent('#movelist');
    const position = await page.evaluate(() => positionCmd());
    assert.match(position, /^position startpos moves 11-15 \S+$/);

    // left alone, the server closes the tab's session and says why
    await page.waitForFunction(() => document.body.dataset.status === 'disconnected', null, { timeout: 10000 });
    assert.match(await page.textContent('#notice'), /idle for/);
    assert.ok(await page.isVisible('#reconnect'));
    await page.screenshot({ path: path.join(SHOTS, 'idle-disconnected.png') });

    await page.click('#reconnect');
    await settle(page);
    assert.equal(await page.textContent('#conn'), 'connected');
    assert.ok(!(await page.isVisible('#reconnect')));
    assert.match(await page.textContent('#notice'), /Reconnected/);
    assert.equal(await page.textContent('#movelist'), before);
    assert.equal(await page.evaluate(() => positionCmd()), position);

    // the restored game is the engine's too: a legal move there is played and answered
    const moves = await legalMoves(page, ['newgame english', position]);
    const [from, to] = [pathOf(moves[0])[0], pathOf(moves[0]).at(-1)];
    await click(page, from);
    await click(page, to);
    await page.waitForFunction(() => Number(document.body.dataset.plies) >= 4);
    await settle(page);
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
    idle.proc.kill('SIGTERM');
  }
});

// ------------------------------------------------------- the game as a record

const plyOf = (page) => page.evaluate(() => Number(document.body.dataset.ply));
const historyOf = (page) => page.evaluate(() => window.kingme.S.history.map((h) => h.text));

/** Plays the person's first legal move (first selectable piece, first destination) and waits for the reply. */
async function playFirst(page) {
  const plies = Number(await page.evaluate(() => document.body.dataset.plies));
  const from = (await squaresWith(page, 'movable'))[0];
  await click(page, from);
  const dest = await squaresWith(page, 'dest');
  await click(page, dest[0]);
  await page.waitForFunction((p) => Number(document.body.dataset.plies) > p, plies);
  await settle(page);
}

/** Waits until the page shows ply `n` and is ready. */
async function atPly(page, n) {
  await page.waitForFunction((p) => Number(document.body.dataset.ply) === p && document.body.dataset.status !== 'busy', n, { timeout: 10000 });
}

test('at level max kingme plays its first move from the opening book, marked "book" in the record', async () => {
  // kingme (Black) moves first from the start, which the shipped book holds
  // (the book is on unless the person turns it off).
  const { page, errors } = await open({ variant: 'english', color: 'W', first: 'B', level: 'max' });
  assert.equal(await page.isChecked('#book'), true);
  assert.equal(await page.locator('#movelist td[data-ply="1"] .book').count(), 1, 'a book badge on move 1');
  assert.equal(await page.evaluate(() => window.kingme.S.history[0].book), true);
  assert.equal(await page.locator('#graph .pt[data-ply="0"]').count(), 1, 'its book value is on the graph');
  assert.match(await page.textContent('#live-info'), /^book \d+-\d+ score /);
  await page.screenshot({ path: path.join(SHOTS, 'book-move.png'), fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
  // ?book=off: the box unchecked, and the same first move is searched
  const off = await open({ variant: 'english', color: 'W', first: 'B', level: 'max', book: 'off' });
  assert.equal(await off.page.isChecked('#book'), false);
  assert.equal(await off.page.evaluate(() => window.kingme.S.history.length), 1);
  assert.equal(await off.page.evaluate(() => !!window.kingme.S.history[0].book), false);
  assert.equal(await off.page.locator('#movelist .book').count(), 0, 'no book badge');
  assert.deepEqual(off.errors, []);
  await off.page.close();
});

test('the evaluation graph has a point per searched ply; clicking one, the buttons and the arrow keys step through the game', async () => {
  // kingme (Black) moves first: it searches plies 0, 2 and 4.
  const { page, errors } = await open({ variant: 'english', color: 'W', first: 'B', level: 'easy' });
  await playFirst(page);
  await playFirst(page);
  const moves = await historyOf(page);
  assert.equal(moves.length, 5);
  assert.equal(await page.locator('#graph .pt').count(), 3, 'one point per engine search');
  assert.deepEqual(await page.$$eval('#graph .pt', (ps) => ps.map((p) => Number(p.dataset.ply))), [0, 2, 4]);
  assert.equal(await page.locator('#graph .pt.current').count(), 0, 'the last position (ply 5) was not searched');
  const fenAt = (n) => engineFen(page, ['newgame english', 'position startpos' + (n ? ' moves ' + moves.slice(0, n).join(' ') : '')]);

  await page.click('#graph .pt[data-ply="2"]');
  await atPly(page, 2);
  assert.equal(await drawnPieces(page), fenPieces(await fenAt(2)));
  assert.equal(await page.locator('#graph .pt.current').count(), 1);
  assert.equal(await page.getAttribute('#graph .pt.current', 'data-ply'), '2');
  assert.equal(await status(page), 'review', 'kingme does not move from an earlier position');
  await page.screenshot({ path: path.join(SHOTS, 'record-graph-ply2.png'), fullPage: true });

  await page.click('#first-ply');
  await atPly(page, 0);
  assert.equal(await drawnPieces(page), fenPieces('B:W21-32:B1-12'));
  assert.ok(await page.isDisabled('#prev-ply'));
  await page.click('#next-ply');
  await atPly(page, 1);
  assert.equal(await drawnPieces(page), fenPieces(await fenAt(1)));
  await page.click('#stats-h'); // the focus off the board: arrows step through the game
  await page.keyboard.press('ArrowRight');
  await atPly(page, 2);
  await page.keyboard.press('ArrowRight');
  await atPly(page, 3);
  assert.equal(await drawnPieces(page), fenPieces(await fenAt(3)));
  await page.keyboard.press('ArrowLeft');
  await atPly(page, 2);
  await page.keyboard.press('End');
  await atPly(page, 5);
  assert.equal(await drawnPieces(page), fenPieces(await fenAt(5)));
  await page.click('#prev-ply');
  await atPly(page, 4);
  await page.click('#last-ply');
  await atPly(page, 5);
  assert.equal(await status(page), 'human');

  // Play on from ply 1 (the person's turn): the moves after it are replaced.
  await page.click('#movelist td[data-ply="1"]');
  await atPly(page, 1);
  const legal = await legalMoves(page, ['newgame english', `position startpos moves ${moves[0]}`]);
  const other = legal.find((m) => m !== moves[1]);
  await click(page, pathOf(other)[0]);
  await click(page, pathOf(other).at(-1));
  await page.waitForFunction(() => document.body.dataset.plies === '3');
  await settle(page);
  const now = await historyOf(page);
  assert.deepEqual(now.slice(0, 2), [moves[0], other]);
  assert.deepEqual(await page.$$eval('#graph .pt', (ps) => ps.map((p) => Number(p.dataset.ply))), [0, 2], 'the replaced searches are gone');
  assert.deepEqual(errors, []);
  await page.close();
});

/** Clicks Download PDN; resolves with the downloaded text. */
async function downloadPdn(page) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#pdn-download')]);
  const file = await dl.path();
  return { file, text: readFileSync(file, 'utf8') };
}

test('a PDN downloaded and loaded back gives the same game, moves and result', async () => {
  // Mini from a position that ends at once: Black (the person) must pass, White's man walks up.
  const { page, errors } = await open({ variant: 'mini', color: 'B', fen: 'B:W13:B16', level: 'easy' });
  await page.waitForFunction(() => document.body.dataset.status === 'over', null, { timeout: 20000 });
  const moves = await historyOf(page);
  const result = await page.textContent('#result');
  const { file, text } = await downloadPdn(page);
  assert.match(text, /^\[Event "kingme web board"\]\n/);
  assert.match(text, /\[Date "\d{4}\.\d\d\.\d\d"\]/);
  assert.match(text, /\[Black "You"\]\n\[White "kingme \(easy\)"\]\n\[Result "1-1"\]\n\[GameType "99"\]\n\[FEN "B:W13:B16"\]\n\[Variant "mini"\]/);
  assert.match(text, new RegExp(`\\n1\\. ${moves[0]} ${moves[1]}`));
  assert.match(text, / 1-1\n\n$/);

  // Another game, then the file loaded back.
  await page.selectOption('#variant', 'english');
  await page.fill('#fen', '');
  await page.click('#start');
  await page.waitForFunction(() => document.body.dataset.variant === 'english' && document.body.dataset.plies === '0');
  await settle(page);
  await page.setInputFiles('#pdn-file', file);
  await page.waitForFunction(() => document.body.dataset.variant === 'mini' && document.body.dataset.status !== 'busy');
  assert.match(await page.textContent('#pdn-msg'), new RegExp(`^Loaded ${moves.length} moves`));
  assert.deepEqual(await historyOf(page), moves);
  assert.equal(await plyOf(page), 0);
  await page.click('#last-ply');
  await atPly(page, moves.length);
  assert.equal(await status(page), 'over');
  assert.equal((await page.textContent('#result')).split('.')[0], result.split('.')[0]);
  await page.screenshot({ path: path.join(SHOTS, 'record-pdn-loaded.png'), fullPage: true });

  // An English game with moves, pasted back: same moves, Result "*".
  await page.selectOption('#variant', 'english');
  await page.selectOption('#color', 'W');
  await page.click('#start');
  await page.waitForFunction(() => document.body.dataset.variant === 'english' && document.body.dataset.turn === 'W' && document.body.dataset.status === 'human');
  await playFirst(page);
  const english = await historyOf(page);
  const two = await downloadPdn(page);
  assert.match(two.text, /\[Result "\*"\]\n\[GameType "21"\]\n\n/);
  assert.doesNotMatch(two.text, /\[FEN /);
  await page.click('#new');
  await settle(page);
  await page.fill('#pdn-text', two.text);
  await page.click('#pdn-load');
  await page.waitForFunction((n) => document.body.dataset.plies === String(n) && document.body.dataset.status !== 'busy', english.length);
  assert.deepEqual(await historyOf(page), english);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a malformed or illegal PDN is refused with a clear message and the game is untouched', async () => {
  const { page, errors } = await open({ variant: 'english', color: 'B', first: 'B', level: 'easy' });
  await playFirst(page);
  const before = { moves: await historyOf(page), pos: await page.evaluate(() => positionCmd()), pieces: await drawnPieces(page) };
  const cases = [
    ['[Event "x"]\n[Black "a"]\n\n1. 11-15 hello 2-0', /Not loaded: PDN line 4: 'hello' is not a move/],
    ['[Event "broken]\n1. 11-15', /Not loaded: PDN line 1: unterminated value of tag Event/],
    ['[Event "x"]\n\n1. 11-15 22-18 2. 15-19 *', /Not loaded: .*illegal move '15-19'.*The current game is unchanged\./],
    ['[GameType "25"]\n1. 32-28 *', /Not loaded: GameType 25 is not a game kingme plays/],
  ];
  for (const [text, want] of cases) {
    await page.fill('#pdn-text', text);
    await page.click('#pdn-load');
    await page.waitForFunction(() => document.getElementById('pdn-msg').dataset.kind === 'error' && document.body.dataset.status !== 'busy');
    assert.match(await page.textContent('#pdn-msg'), want);
    assert.deepEqual(await historyOf(page), before.moves);
    assert.equal(await page.evaluate(() => positionCmd()), before.pos);
    assert.equal(await drawnPieces(page), before.pieces);
    if (text.includes('15-19')) await page.screenshot({ path: path.join(SHOTS, 'record-pdn-refused.png'), fullPage: true });
    await page.evaluate(() => { document.getElementById('pdn-msg').dataset.kind = ''; });
  }
  // The engine's session has the game too: the person's move is answered.
  await playFirst(page);
  assert.equal(await page.evaluate(() => document.body.dataset.plies), '4');
  assert.deepEqual((await historyOf(page)).slice(0, 2), before.moves);
  assert.deepEqual(errors.filter((e) => !e.includes('error')), []);
  await page.close();
});

/** A PDN file written by the real referee (kingme-referee --pdn), or the fixture it wrote. */
function refereePdn() {
  // A file to replay a failure with: KINGME_REFEREE_PDN=path/games.pdn
  if (process.env.KINGME_REFEREE_PDN) return { file: process.env.KINGME_REFEREE_PDN, live: false };
  const referee = process.env.KINGME_REFEREE_BIN || path.join(root, 'target/debug/kingme-referee');
  const engine = process.env.KINGME_BIN || path.join(root, 'target/debug/kingme');
  if (existsSync(referee) && existsSync(engine)) {
    const dir = mkdtempSync(path.join(tmpdir(), 'kingme-referee-'));
    const out = path.join(dir, 'games.pdn');
    execFileSync(referee, ['--engine-a', `cmd:${engine}`, '--engine-b', `cmd:${engine}`, '--option-a', 'Level=easy', '--option-b', 'Level=easy',
      '--games', '2', '--movetime', '10', '--quiet', '--pdn', out], { stdio: ['ignore', 'ignore', 'inherit'], timeout: 60000 });
    return { file: out, live: true };
  }
  console.log(`# ${referee} or ${engine} missing: using the referee's file in fixtures/`);
  return { file: path.join(here, 'fixtures/referee-english.pdn'), live: false };
}

test('a PDN from kingme-referee loads and steps to its final position', async () => {
  const { file } = refereePdn();
  const text = readFileSync(file, 'utf8');
  // The first game, read here with a regex of our own.
  const first = text.split(/\n\n(?=\[)/)[0];
  const fen = first.match(/\[FEN "([^"]+)"\]/)?.[1];
  const result = first.match(/\[Result "([^"]+)"\]/)[1];
  const body = first.slice(first.lastIndexOf(']') + 1);
  const moves = body.split(/\s+/).filter((t) => t !== result && /^(\d+\.+)?(\d+[-x]\d+([x]\d+)*|pass)$/.test(t)).map((t) => t.replace(/^\d+\.+/, ''));
  assert.ok(moves.length > 10, `a real game (${moves.length} moves)`);
  const { page, errors } = await open({ variant: 'english', color: 'B', first: 'B', level: 'easy' });
  await page.setInputFiles('#pdn-file', file);
  await page.waitForFunction((n) => document.body.dataset.plies === String(n) && document.body.dataset.status !== 'busy', moves.length, { timeout: 15000 });
  assert.deepEqual(await historyOf(page), moves);
  assert.match(await page.textContent('#pdn-msg'), /kingme \(Level=easy\) \[A\]/);
  await page.click('#stats-h');
  await page.keyboard.press('End');
  await atPly(page, moves.length);
  const want = await engineFen(page, ['newgame english', (fen ? `position fen ${fen}` : 'position startpos') + ` moves ${moves.join(' ')}`]);
  assert.equal(await drawnPieces(page), fenPieces(want));
  assert.match(await page.textContent('#result'), new RegExp(`^${result}: `));
  await page.screenshot({ path: path.join(SHOTS, 'record-referee-final.png'), fullPage: true });
  // And its first position is the FEN's.
  await page.keyboard.press('Home');
  await atPly(page, 0);
  if (fen) assert.equal(await drawnPieces(page), fenPieces(fen));
  assert.deepEqual(errors, []);
  await page.close();
});

test('the clock: kingme gets wtime/btime/winc/binc, the side to move runs down and loses on time', async () => {
  // The person plays White; kingme (Black) moves first with 0.1 min + 1 s each.
  const { page, errors } = await open({ variant: 'english', color: 'W', first: 'B', level: 'easy', clock: '0.1+1' });
  assert.ok(await page.isVisible('#clocks'));
  assert.match(await page.textContent('#log'), /> go wtime 6000 btime \d+ winc 1000 binc 1000\n/);
  const ms = () => page.evaluate(() => Number(document.getElementById('clock-W').dataset.ms));
  const a = await ms();
  await page.waitForTimeout(600);
  const b = await ms();
  assert.ok(b < a - 300, `White's clock runs (${a} -> ${b})`);
  assert.ok(await page.evaluate(() => document.getElementById('clock-W').classList.contains('running')));
  assert.ok(!(await page.evaluate(() => document.getElementById('clock-B').classList.contains('running'))));
  const black = await page.evaluate(() => Number(document.getElementById('clock-B').dataset.ms));
  assert.ok(black > 6000 - 3000 && black <= 7000, `Black got its increment (${black})`);
  await page.screenshot({ path: path.join(SHOTS, 'clock-running.png') });
  await page.waitForFunction(() => document.body.dataset.status === 'over', null, { timeout: 10000 });
  assert.match(await page.textContent('#result'), /^2-0: White lost on time\. kingme wins\.$/);
  assert.ok(await page.evaluate(() => document.getElementById('clock-W').classList.contains('flagged')));
  await click(page, 22);
  assert.match(await page.textContent('#notice'), /game is over/);
  await page.screenshot({ path: path.join(SHOTS, 'clock-flagged.png') });
  const { text } = await downloadPdn(page);
  assert.match(text, /\[Result "2-0"\]/);
  assert.match(text, /\[Termination "White lost on time"\]/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('analysing: the engine moves for neither side, lines appear live, moves for both sides, exact value badge', async () => {
  const { page, errors } = await open({ variant: 'english', color: 'B', first: 'W', level: 'easy', mode: 'analyse' });
  // White is to move and the person plays Black, yet kingme does not move.
  await page.waitForFunction(() => document.querySelectorAll('#pvlines .pv-line').length >= 1);
  assert.equal(await page.evaluate(() => document.body.dataset.analysing), 'true');
  await page.waitForTimeout(700);
  assert.equal(await page.evaluate(() => document.body.dataset.plies), '0');
  assert.match(await page.textContent('#pvlines .pv-line'), /^[+-]?\d+\.\d\dd\d+\d+[-x]\d+/);
  await page.screenshot({ path: path.join(SHOTS, 'analysis-lines.png'), fullPage: true });
  // The person moves for White, then for Black.
  await playFirst(page);
  assert.equal(await page.evaluate(() => document.body.dataset.turn), 'B');
  await playFirst(page);
  assert.equal(await page.evaluate(() => document.body.dataset.plies), '2');
  // The analysis scores the positions shown: points on the graph.
  await page.waitForFunction(() => document.querySelectorAll('#graph .pt[data-ply="2"]').length === 1);
  // Back to playing: kingme (White) moves.
  await page.selectOption('#mode', 'play');
  await page.waitForFunction(() => document.body.dataset.plies === '3', null, { timeout: 10000 });

  // An exact value: Black takes White's last man and wins; the endgame
  // databases built into kingme know it before any search.
  await page.selectOption('#mode', 'analyse');
  await page.fill('#fen', 'B:W18:B14');
  await page.click('#start');
  await page.waitForFunction(() => !document.getElementById('exact').hidden);
  assert.equal(await page.textContent('#exact'), 'Black wins (database)');
  await page.screenshot({ path: path.join(SHOTS, 'analysis-exact.png'), fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
});
