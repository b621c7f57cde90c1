// Unit tests of the page's pure modules under node (no browser): the
// protocol parsers (with the MultiPV and exact-value lines of the analysis
// protocol and the review's lines, as literal samples), the protocol client's
// handling of a review over a stand-in WebSocket, PDN in and out, and the clock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Proto, parseInfo, parseValues, parseBoardReply, parseScore, parseBookNote, hasOption, parseReview, parseReviewDone } from '../../src/page/protocol.js';
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

// Lines kingme wrote: `review nodes 20000` of the English game
// 11-15 22-18 15x22 25x18 9-13 18-14 10x17 21x14 12-16 24-19 16-20 14-9 5x14,
// and `review nodes 3000` of the mini game
// 5-7 15-12 1-5 13-10 5-8 12x5 6-9 16-13 9-12 14x9 2-6 9x2 (the solved table's exact values).
test('review lines: every field, forced and exact flags, the pv, the note', () => {
  const blunder = parseReview('review ply 11 by white move 14-9 verdict blunder loss 0.2986 best 29-25 score cp -108 played cp -513 depth 8 nodes 20480 time 61 pv 29-25 6-10 25-21 10x17 21x14 2-6 30-25 8-11 26-22 6-10');
  assert.deepEqual(blunder, {
    ply: 11, by: 'white', move: '14-9', verdict: 'blunder', loss: 0.2986, best: '29-25',
    score: { kind: 'cp', n: -108 }, played: { kind: 'cp', n: -513 }, depth: 8, nodes: 20480, time: 61,
    forced: false, exact: false, pv: ['29-25', '6-10', '25-21', '10x17', '21x14', '2-6', '30-25', '8-11', '26-22', '6-10'], note: null,
  });
  const forced = parseReview('review ply 12 by black move 5x14 verdict best loss 0.0000 best 5x14 score cp 513 played cp 513 depth 2 nodes 4 time 0 forced pv 5x14');
  assert.equal(forced.forced, true);
  assert.equal(forced.exact, false);
  assert.equal(forced.loss, 0);
  assert.deepEqual(forced.pv, ['5x14']);
  const good = parseReview('review ply 1 by white move 22-18 verdict good loss 0.0278 best 24-20 score cp -16 played cp -34 depth 8 nodes 20480 time 61 pv 24-20 8-11 28-24 4-8 22-18 15x22 25x18 10-15 26-22');
  assert.equal(good.verdict, 'good');
  assert.equal(good.pv.length, 9);
  const exact = parseReview('review ply 4 by black move 5-8 verdict blunder loss 0.5000 best 6-8 score draw played loss 24 depth 1 nodes 5 time 0 exact pv 6-8 note turned a draw into a loss');
  assert.deepEqual(exact.score, { kind: 'draw', n: 0 });
  assert.deepEqual(exact.played, { kind: 'loss', n: 24 });
  assert.equal(exact.exact, true);
  assert.deepEqual(exact.pv, ['6-8']);
  assert.equal(exact.note, 'turned a draw into a loss');
  const both = parseReview('review ply 11 by white move 9x2 verdict best loss 0.0000 best 9x2 score win 11 played win 11 depth 1 nodes 2 time 0 forced exact pv 9x2 note kept the win');
  assert.ok(both.forced && both.exact);
  assert.deepEqual(both.score, { kind: 'win', n: 11 });
  assert.equal(both.note, 'kept the win');
  assert.equal(parseReview('review ply 8 by black move 9-12 verdict good loss 0.0000 best 2-6 score loss 21 played loss 14 depth 1 nodes 6 time 1 exact pv 2-6 note lost anyway, 7 plies sooner').note, 'lost anyway, 7 plies sooner');
  // not review lines, or broken ones
  assert.equal(parseReview('reviewdone complete black moves 0 lost 0.0000 best 0 good 0 inaccuracy 0 mistake 0 blunder 0 white moves 0 lost 0.0000 best 0 good 0 inaccuracy 0 mistake 0 blunder 0'), null);
  assert.equal(parseReview('info string review of 13 moves, 14 positions'), null);
  assert.equal(parseReview('review ply 4 by black move 5-8 verdict awful loss 0.5000 best 6-8 score draw played loss 24 pv 6-8'), null, 'an unknown verdict');
  assert.equal(parseReview('review ply 4 by black move 5-8 verdict blunder loss 0.5000 best 6-8 score mate 3 played loss 24 pv 6-8'), null, 'an unknown score');
  assert.equal(parseReview('review ply 4 by black move 5-8 verdict blunder'), null, 'cut short');
});

test('reviewdone lines: complete and stopped, each side\'s figures', () => {
  const done = parseReviewDone('reviewdone complete black moves 7 lost 0.4448 best 5 good 0 inaccuracy 0 mistake 1 blunder 1 white moves 6 lost 0.8879 best 2 good 1 inaccuracy 0 mistake 1 blunder 2');
  assert.deepEqual(done, {
    state: 'complete',
    B: { moves: 7, lost: 0.4448, best: 5, good: 0, inaccuracy: 0, mistake: 1, blunder: 1 },
    W: { moves: 6, lost: 0.8879, best: 2, good: 1, inaccuracy: 0, mistake: 1, blunder: 2 },
  });
  const stopped = parseReviewDone('reviewdone stopped black moves 0 lost 0.0000 best 0 good 0 inaccuracy 0 mistake 0 blunder 0 white moves 0 lost 0.0000 best 0 good 0 inaccuracy 0 mistake 0 blunder 0');
  assert.equal(stopped.state, 'stopped');
  assert.equal(stopped.W.moves, 0);
  assert.equal(parseReviewDone('reviewdone complete black moves 6 lost 0.5000 best 4 good 1 inaccuracy 0 mistake 0 blunder 1 white moves 6 lost 0.0000 best 5 good 1 inaccuracy 0 mistake 0 blunder 0').B.lost, 0.5);
  assert.equal(parseReviewDone('reviewdone finished black moves 0 lost 0 best 0 good 0 inaccuracy 0 mistake 0 blunder 0 white moves 0 lost 0 best 0 good 0 inaccuracy 0 mistake 0 blunder 0'), null);
  assert.equal(parseReviewDone('reviewdone complete black moves 7 lost 0.4448 best 5'), null, 'a side cut short, the other missing');
  assert.equal(parseReviewDone('review ply 0 by black move 11-15 verdict best loss 0.0000 best 11-15 score cp 16 played cp 16 depth 9 nodes 20480 time 78 pv 11-15'), null);
});

/** A stand-in for the browser's WebSocket: records what is sent; `receive` delivers a message. */
class FakeSocket {
  constructor() { this.sent = []; this.listeners = {}; FakeSocket.last = this; }
  addEventListener(kind, f) { this.listeners[kind] = f; }
  send(text) { this.sent.push(text); }
  receive(text) { this.listeners.message({ data: text }); }
}

test('the protocol client: a review reports each move, holds other requests back, and stop ends it', async () => {
  globalThis.WebSocket = FakeSocket;
  const notes = [];
  const errors = [];
  const proto = new Proto('ws://test/ws', { open() {}, close() {}, info() {}, note: (t) => notes.push(t), error: (l) => errors.push(l), log() {} });
  const ws = FakeSocket.last;
  const judged = [];
  const review = proto.review('review nodes 2000', (e) => judged.push(e.ply));
  assert.ok(proto.searching());
  const board = proto.request(['board']);
  assert.deepEqual(ws.sent, ['review nodes 2000'], 'nothing else is sent while the review runs');
  ws.receive('info string review of 13 moves, 14 positions\nreview ply 12 by black move 5x14 verdict best loss 0.0000 best 5x14 score cp 513 played cp 513 depth 2 nodes 4 time 0 forced pv 5x14');
  ws.receive('review ply 11 by white move 14-9 verdict blunder loss 0.2986 best 29-25 score cp -108 played cp -513 depth 8 nodes 20480 time 61 pv 29-25 6-10');
  assert.deepEqual(judged, [12, 11]);
  assert.deepEqual(notes, ['review of 13 moves, 14 positions']);
  proto.stop(false);
  proto.stop(false);
  assert.deepEqual(ws.sent, ['review nodes 2000', 'stop'], 'one stop');
  ws.receive('reviewdone stopped black moves 1 lost 0.0000 best 1 good 0 inaccuracy 0 mistake 0 blunder 0 white moves 1 lost 0.2986 best 0 good 0 inaccuracy 0 mistake 0 blunder 1');
  const res = await review;
  assert.equal(res.done.state, 'stopped');
  assert.equal(res.done.W.blunder, 1);
  assert.deepEqual(res.entries.map((e) => e.move), ['5x14', '14-9']);
  assert.equal(res.discard, false);
  assert.ok(!proto.searching());
  assert.deepEqual(ws.sent.slice(2), ['board', 'isready'], 'the request held back goes out after reviewdone');
  ws.receive('fen B:W21-32:B1-12\nreadyok');
  assert.deepEqual(await board, ['fen B:W21-32:B1-12']);

  // Refused: an error line ends it, with no figures.
  const refused = proto.review('review movetime 300', () => assert.fail('no move was judged'));
  ws.receive('error review: the game has no moves; send position ... moves ... first');
  const r = await refused;
  assert.equal(r.done, null);
  assert.match(r.error, /^error review: the game has no moves/);
  assert.deepEqual(errors, [r.error]);

  // A discarding stop drops a review still queued behind a request.
  const pending = proto.request(['moves']);
  const queued = proto.review('review nodes 10', () => {});
  proto.stop(true);
  assert.equal((await queued).discard, true);
  ws.receive('readyok');
  await pending;
  assert.ok(!ws.sent.includes('review nodes 10'));
  delete globalThis.WebSocket;
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
