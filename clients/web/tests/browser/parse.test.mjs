// Unit tests of the page's pure modules under node (no browser): the
// protocol parsers (with the MultiPV and exact-value lines of the analysis
// protocol, as literal samples), PDN in and out, and the clock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseInfo, parseValues, parseBoardReply, parseScore, parseBookNote, hasOption } from '../../src/page/protocol.js';
import { writePdn, parsePdn, parseGameText, movetext, PdnError } from '../../src/page/pdn.js';
import { Clock, clockText } from '../../src/page/clock.js';

test('info lines: with and without multipv, every score kind', () => {
  const a = parseInfo('info depth 7 seldepth 12 multipv 3 score cp -25 nodes 4521 prunes 1 prunesmax 1 prunesmin 0 tthits 2 egdb 0 nps 100 time 45 pv 9-14 23-18 14x23');
  assert.equal(a.depth, 7);
  assert.equal(a.seldepth, 12);
  assert.equal(a.multipv, 3);
  assert.deepEqual(a.score, { kind: 'cp', n: -25 });
  assert.equal(a.nodes, 4521);
  assert.deepEqual(a.pv, ['9-14', '23-18', '14x23']);
  // No multipv field (MultiPV 1, or an engine without it): line 1.
  const b = parseInfo('info depth 3 seldepth 4 score cp -8 nodes 92 prunes 23 prunesmax 7 prunesmin 16 tthits 4 egdb 0 nps 203619 time 0 pv 9-14 23-18 14x23 26x19');
  assert.equal(b.multipv, 1);
  assert.deepEqual(b.score, { kind: 'cp', n: -8 });
  assert.equal(b.pv.length, 4);
  // draw is one word: the field after it is still read.
  const c = parseInfo('info depth 20 seldepth 20 multipv 2 score draw nodes 10 pv 5-9');
  assert.deepEqual(c.score, { kind: 'draw', n: 0 });
  assert.equal(c.nodes, 10);
  assert.equal(c.multipv, 2);
  assert.deepEqual(parseInfo('info depth 9 seldepth 9 multipv 1 score win 17 nodes 5 pv 1-5').score, { kind: 'win', n: 17 });
  assert.deepEqual(parseInfo('info depth 1 seldepth 1 score loss 503 nodes 1').score, { kind: 'loss', n: 503 });
  assert.equal(parseInfo('info depth 1 seldepth 1 score loss 503 nodes 1').pv, undefined);
  assert.deepEqual(parseScore('win 5'), { kind: 'win', n: 5 });
  assert.equal(parseScore('mate 5'), null);
});

test('book notes: the move, its score and depth; other notes are not book moves', () => {
  assert.deepEqual(parseBookNote('book 11-15 score cp -4 depth 19'), { move: '11-15', score: { kind: 'cp', n: -4 }, depth: 19 });
  assert.deepEqual(parseBookNote('book 9x18 score draw depth 3'), { move: '9x18', score: { kind: 'draw', n: 0 }, depth: 3 });
  assert.deepEqual(parseBookNote('book 1-5 score win 501 depth 7').score, { kind: 'win', n: 501 });
  assert.equal(parseBookNote('search slot granted; searching'), null);
  assert.equal(parseBookNote('book 11-15 score cp depth 19'), null);
  assert.equal(parseBookNote('book 11-15 score cp 3'), null);
});

test('values and board replies: exact values per move, the database line, game over', () => {
  const v = parseValues('values 11-15 win 17 9-13 draw 10x19x26 loss 4');
  assert.deepEqual([...v.keys()], ['11-15', '9-13', '10x19x26']);
  assert.deepEqual(v.get('11-15'), { kind: 'win', n: 17 });
  assert.deepEqual(v.get('9-13'), { kind: 'draw', n: 0 });
  assert.deepEqual(v.get('10x19x26'), { kind: 'loss', n: 4 });
  const r = parseBoardReply(['  +---+', 'fen W:WK32:BK26', 'turn white', 'last none', 'database win', 'moves 32-27 32-28', 'values 32-27 loss 30 32-28 loss 12']);
  assert.equal(r.fen, 'W:WK32:BK26');
  assert.equal(r.database, 'win');
  assert.deepEqual(r.legal.map((m) => m.text), ['32-27', '32-28']);
  assert.equal(r.values.size, 2);
  assert.equal(r.over, null);
  const o = parseBoardReply(['fen W:W:B1', 'gameover 2-0 black wins (the side to move has no legal move)', 'moves none']);
  assert.deepEqual(o.over, { result: '2-0', text: 'black wins (the side to move has no legal move)' });
  assert.deepEqual(o.legal, []);
  assert.ok(hasOption(['id name kingme', 'option name MultiPV type spin default 1 min 1 max 64'], 'MultiPV'));
  assert.ok(!hasOption(['option name Hash type spin default 16 min 1 max 4096'], 'MultiPV'));
});

test('PDN: written as the referee writes it, and read back', () => {
  assert.equal(movetext('B', ['11-15', '22-18', '15x22'], '1-1'), '1. 11-15 22-18 2. 15x22 1-1\n');
  assert.equal(movetext('W', ['11-15', '22-18', '15x22'], '0-2'), '1... 11-15 2. 22-18 15x22 0-2\n');
  const text = writePdn({ event: 'e "q"', date: '2026.01.02', black: 'You', white: 'kingme', result: '1-1', variant: 'mini', fen: 'B:W13:B16', moves: ['pass', '13-10'] });
  assert.match(text, /^\[Event "e \\"q\\""\]\n/);
  assert.match(text, /\[GameType "99"\]\n\[FEN "B:W13:B16"\]\n\[Variant "mini"\]/);
  const g = parsePdn(text);
  assert.equal(g.tags.get('event'), 'e "q"');
  assert.deepEqual(g.moves, ['pass', '13-10']);
  assert.equal(g.result, '1-1');
  const eng = parseGameText('[Event "x"]\n[GameType "21"]\n\n1. 11-15 {a comment} 22-18 (2. 15-19) 2.15x22 ; rest\n2-0\n\n[Event "next"]\n1. 9-13 *\n');
  assert.equal(eng.variant, 'english');
  assert.deepEqual(eng.moves, ['11-15', '22-18', '15x22']);
  assert.equal(eng.result, '2-0');
  const fen = parseGameText('W:W21-32:B1-12 moves 22-18 11-15');
  assert.equal(fen.fen, 'W:W21-32:B1-12');
  assert.deepEqual(fen.moves, ['22-18', '11-15']);
  for (const bad of ['[Event x]', '1. 11-15 hello', '[Event "x"', '', '{ never closed', '[GameType "20"]\n1. 32-28 *', 'B:Wxyz 11-15']) {
    assert.throws(() => parseGameText(bad), PdnError, JSON.stringify(bad));
  }
  assert.throws(() => parseGameText('1. 11-15 hello'), /'hello' is not a move/);
});

test('clock: the side to move runs, increments after a move, flags at zero', () => {
  const c = new Clock(60000, 2000, 0);
  c.run('B', 0);
  assert.equal(c.remaining('B', 1500), 58500);
  assert.equal(c.remaining('W', 1500), 60000);
  c.moved('B', 'W', 1500);
  assert.equal(c.remaining('B', 5000), 60500);
  assert.equal(c.goCmd(5000), 'go wtime 56500 btime 60500 winc 2000 binc 2000');
  assert.equal(c.flagged(5000), null);
  assert.equal(c.flagged(62000), 'W');
  c.pause(10000);
  assert.equal(c.flagged(1e9), null, 'a paused clock never flags');
  assert.equal(clockText(65000), '1:05');
  assert.equal(clockText(3250), '0:03.3');
});
