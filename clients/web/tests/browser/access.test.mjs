// The board behind its key (kingme-web --require-key, as beyond loopback): the
// printed URL opens a working board and leaves a cookie that is enough from
// then on; without the key the page is refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, useBrowser } from './harness.mjs';

let context;
useBrowser((b) => ({ context } = b));

const ready = (page) => page.waitForFunction(
  () => ['human', 'over'].includes(document.body.dataset.status), null, { timeout: 20000 });

test('with --require-key the printed URL opens a working board, and the bare one does not', async () => {
  const keyed = await startServer(['--require-key']);
  const page = await context.newPage();
  try {
    assert.match(keyed.url, /\/\?key=[0-9a-f]{32}$/);
    const base = keyed.url.replace(/\?.*$/, '');
    const game = 'variant=mini&color=B&first=B&level=easy';

    const refused = await page.goto(base + '?' + game);
    assert.equal(refused.status(), 403);
    assert.match(await page.textContent('body'), /needs its key/);

    await page.goto(keyed.url + '&' + game);
    await ready(page);
    assert.equal(await page.textContent('#conn'), 'connected');
    const cookies = (await context.cookies(base)).filter((c) => c.name.startsWith('kingme-web-key-'));
    assert.equal(cookies.length, 1);
    assert.equal(cookies[0].value, keyed.url.split('?key=')[1]);
    assert.equal(cookies[0].httpOnly, true);
    assert.equal(cookies[0].sameSite, 'Strict');

    // The cookie alone opens the board and its WebSocket now.
    await page.goto(base + '?' + game);
    await ready(page);
    assert.equal(await page.textContent('#conn'), 'connected');
  } finally {
    await page.close();
    keyed.proc.kill('SIGTERM');
  }
});
