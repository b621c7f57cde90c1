// What the browser test files share: where the binaries are, kingme-web on a
// free port, Debian's headless Chromium with a fresh profile, and questions put
// to the engine over a WebSocket of their own (not the page's logic).
import assert from 'node:assert/strict';
import { before, after } from 'node:test';
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, '../../../..');
export const BIN = process.env.KINGME_WEB_BIN || path.join(root, 'target/debug/kingme-web');
export const SHOTS = path.join(root, 'target/web-screenshots');
export const CHROMIUM = process.env.CHROMIUM_BIN || '/usr/bin/chromium';

/** Starts kingme-web on a free port; resolves with the process and the URL it
 * prints (with its `?key=` when it has one). */
export function startServer(extra = []) {
  return new Promise((resolve, reject) => {
    const proc = spawn(BIN, ['--listen', '127.0.0.1:0', ...extra], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error('kingme-web printed no URL in 10 s: ' + out)), 10000);
    proc.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/http:\/\/[^\s/]+\/(\?key=[0-9a-f]+)?/);
      if (m) {
        clearTimeout(timer);
        resolve({ proc, url: m[0] });
      }
    });
    proc.on('exit', (code) => reject(new Error(`kingme-web exited (${code}) before printing its URL`)));
  });
}

/** kingme-web and a headless Chromium for one test file; `close()` ends both. */
export async function startBrowser() {
  assert.ok(existsSync(BIN), `build kingme-web first (cargo build -p kingme-web): ${BIN} is missing`);
  assert.ok(existsSync(CHROMIUM), `install Debian's chromium: ${CHROMIUM} is missing`);
  mkdirSync(SHOTS, { recursive: true });
  const { proc, url } = await startServer();
  const profile = mkdtempSync(path.join(tmpdir(), 'kingme-web-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
    viewport: { width: 1200, height: 900 },
  });
  return {
    baseUrl: url,
    context,
    async close() {
      await context.close();
      proc.kill('SIGTERM');
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Starts kingme-web and Chromium before a test file's tests and ends them
 * after; `ready` gets the running pair. */
export function useBrowser(ready) {
  let browser;
  before(async () => {
    browser = await startBrowser();
    ready(browser);
  });
  after(async () => {
    if (browser) await browser.close();
  });
}

/**
 * What follows `prefix` in the first line starting with it that the engine
 * answers to `lines`, asked over a WebSocket of its own (not the page's logic).
 */
export function askEngine(page, lines, prefix) {
  return page.evaluate(([lines, prefix]) => new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://${location.host}/ws`);
    const t = setTimeout(() => reject(new Error(`no ${prefix.trim()} line`)), 5000);
    ws.onopen = () => ws.send(lines.join('\n'));
    ws.onmessage = (e) => {
      for (const l of String(e.data).split('\n')) {
        if (l.startsWith('error')) { clearTimeout(t); reject(new Error(l)); }
        if (l.startsWith(prefix)) { clearTimeout(t); ws.close(); resolve(l.slice(prefix.length)); }
      }
    };
  }), [lines, prefix]);
}

/** The board as drawn: sorted like `B1 WK30`. */
export const drawnPieces = (page) => page.evaluate(() => [...document.querySelectorAll('.sq.has-piece')]
  .map((g) => `${g.classList.contains('white') ? 'W' : 'B'}${g.classList.contains('king') ? 'K' : ''}${g.dataset.square}`).sort().join(' '));

/** The same from a FEN (ranges expanded). */
export function fenPieces(fen) {
  const out = [];
  for (const part of fen.split(':').slice(1)) {
    for (let item of part.slice(1).split(',').filter(Boolean)) {
      const king = item.startsWith('K');
      if (king) item = item.slice(1);
      const [a, b] = item.split('-').map(Number);
      for (let n = a; n <= (b || a); n++) out.push(`${part[0]}${king ? 'K' : ''}${n}`);
    }
  }
  return out.sort().join(' ');
}

/** The engine's FEN after `setup`, asked over a WebSocket of its own. */
export async function engineFen(page, setup) {
  return (await askEngine(page, setup.concat('board'), 'fen ')).trim();
}
