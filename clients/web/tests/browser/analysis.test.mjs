// The analysis panel with an engine that has the MultiPV option (the analysis
// protocol: `setoption name MultiPV value N`, `analyze N`, `info ... multipv K`).
// The engine's handshake must list the MultiPV option (a test fails if not).
// Run from this folder like board.test.mjs:
//   KINGME_WEB_BIN=$PWD/../../../../target/debug/kingme-web node --test analysis.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { SHOTS, useBrowser } from './harness.mjs';

let baseUrl;
let context;
useBrowser((b) => ({ baseUrl, context } = b));

for (const n of [2, 4]) {
  test(`the analysis panel shows ${n} lines, distinct first moves, best first`, async () => {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${baseUrl}?variant=english&color=B&first=B&level=easy&mode=analyse&multipv=${n}`);
    await page.waitForFunction(() => document.body.dataset.status === 'human');
    assert.ok(await page.evaluate(() => window.kingme.S.engineMultiPV), 'the handshake lists the MultiPV option');
    // the board may write its commands to the log a moment after it is ready
    await page.waitForFunction(
      (k) => new RegExp(`> setoption name MultiPV value ${k}\\n[^]*> analyze ${k}\\n`).test(document.getElementById('log').textContent),
      n,
      { timeout: 10000 },
    );
    await page.waitForFunction((k) => document.querySelectorAll('#pvlines .pv-line').length === k, n, { timeout: 20000 });
    const lines = await page.$$eval('#pvlines .pv-line', (ls) => ls.map((l) => ({ k: Number(l.dataset.multipv), first: l.querySelector('.pv-moves').textContent.split(' ')[0] })));
    assert.deepEqual(lines.map((l) => l.k), Array.from({ length: n }, (_, i) => i + 1));
    assert.equal(new Set(lines.map((l) => l.first)).size, n, 'distinct first moves');
    const value = (s) => (s.kind === 'cp' ? s.n : s.kind === 'draw' ? 0 : s.kind === 'win' ? 1e6 - s.n : -1e6 + s.n);
    const infos = await page.evaluate(() => [...window.kingme.S.lines.values()].sort((a, b) => a.multipv - b.multipv).map((i) => ({ depth: i.depth, score: i.score })));
    // Lines of one iteration are ordered by score (a line of the next iteration may already be in).
    for (let i = 1; i < infos.length; i++) {
      if (infos[i].depth === infos[i - 1].depth) assert.ok(value(infos[i - 1].score) >= value(infos[i].score), `ordered by score: ${JSON.stringify(infos)}`);
    }
    await page.screenshot({ path: path.join(SHOTS, `analysis-multipv-${n}.png`), fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  });
}
