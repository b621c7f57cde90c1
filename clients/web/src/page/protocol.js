// The protocol client: one WebSocket carrying kingme protocol lines
// (protocol/PROTOCOL.md), and pure parsers of the engine's replies. Nothing
// here touches the page, so node can unit-test the parsers.

/** One WebSocket carrying protocol lines, with request/response by `isready`. */
export class Proto {
  /**
   * handlers: open(), close(event), info(info), note(text), error(line), log(line).
   */
  constructor(url, handlers) {
    this.handlers = handlers;
    this.pending = null; // { lines, resolve } of the request being answered
    this.waiting = []; // requests queued behind it
    this.search = null; // { infos, resolve, discard } while a go runs
    this.ws = new WebSocket(url);
    this.ws.addEventListener('open', () => handlers.open());
    this.ws.addEventListener('close', (e) => handlers.close(e));
    this.ws.addEventListener('message', (e) => {
      for (const line of String(e.data).split('\n')) this.onLine(line.replace(/\r$/, ''));
    });
  }

  send(line) {
    this.handlers.log('> ' + line);
    this.ws.send(line);
  }

  onLine(line) {
    if (line === '') return;
    this.handlers.log('< ' + line);
    if (this.search && this.search.kind === 'review') {
      const s = this.search;
      if (line.startsWith('review ')) {
        const entry = parseReview(line);
        if (entry) {
          s.entries.push(entry);
          if (!s.discard) s.onEntry(entry);
        }
        return;
      }
      if (line.startsWith('reviewdone')) {
        this.search = null;
        s.resolve({ entries: s.entries, done: parseReviewDone(line), discard: s.discard });
        this.next();
        return;
      }
      if (line.startsWith('info string')) return this.handlers.note(line.slice(12));
      if (line.startsWith('error')) {
        // The review was refused (or an older engine has none): no reviewdone will come.
        this.search = null;
        this.handlers.error(line);
        s.resolve({ entries: s.entries, done: null, discard: s.discard, error: line });
        this.next();
        return;
      }
    } else if (this.search) {
      if (line.startsWith('bestmove')) {
        const s = this.search;
        this.search = null;
        s.resolve({ best: line.split(/\s+/)[1], infos: s.infos, gameover: s.gameover, discard: s.discard, book: s.book });
        this.next();
        return;
      }
      if (line.startsWith('info string')) {
        const book = parseBookNote(line.slice(12));
        if (book) this.search.book = book;
        return this.handlers.note(line.slice(12));
      }
      if (line.startsWith('info')) {
        const info = parseInfo(line);
        this.search.infos.push(info);
        if (!this.search.discard) this.handlers.info(info);
        return;
      }
      if (line.startsWith('gameover')) { this.search.gameover = line; return; }
      if (line.startsWith('error')) {
        // The go was refused: no bestmove will come.
        const s = this.search;
        this.search = null;
        this.handlers.error(line);
        s.resolve({ best: 'none', infos: s.infos, gameover: null, discard: s.discard, error: line });
        this.next();
        return;
      }
    }
    if (this.pending) {
      if (line === 'readyok') {
        const p = this.pending;
        this.pending = null;
        p.resolve(p.lines);
        this.next();
      } else {
        this.pending.lines.push(line);
      }
      return;
    }
    if (line.startsWith('error')) this.handlers.error(line);
  }

  /** Sends `lines` then `isready`; resolves with every line before `readyok`. */
  request(lines) {
    return new Promise((resolve) => {
      this.waiting.push({ kind: 'req', lines, resolve });
      this.next();
    });
  }

  /** Sends `go ...` (or `analyze`); resolves on `bestmove` with the `info` lines seen. */
  go(cmd) {
    return new Promise((resolve) => {
      this.waiting.push({ kind: 'go', cmd, resolve });
      this.next();
    });
  }

  /**
   * Sends `review ...`; `onEntry(entry)` gets each judged move (parseReview) as
   * it comes; resolves on `reviewdone` with { entries, done (parseReviewDone),
   * discard }, or on a refusal with `error` set and `done` null.
   */
  review(cmd, onEntry) {
    return new Promise((resolve) => {
      this.waiting.push({ kind: 'review', cmd, onEntry, resolve });
      this.next();
    });
  }

  /**
   * Ends the running search or review; its result is marked `discard` when
   * asked. A discarding stop also drops the searches still queued (they resolve
   * at once, discarded), so an infinite analysis never starts after its
   * position changed.
   */
  stop(discard) {
    if (discard) {
      const keep = [];
      for (const job of this.waiting) {
        if (job.kind === 'go') job.resolve({ best: 'none', infos: [], gameover: null, discard: true });
        else if (job.kind === 'review') job.resolve({ entries: [], done: null, discard: true });
        else keep.push(job);
      }
      this.waiting = keep;
    }
    if (this.search) {
      this.search.discard = this.search.discard || discard;
      if (!this.search.stopped) this.send('stop');
      this.search.stopped = true;
    }
  }

  /** Whether a search (or a review) is running or queued. */
  searching() {
    return !!this.search || this.waiting.some((j) => j.kind !== 'req');
  }

  next() {
    if (this.pending || this.search) return;
    const job = this.waiting.shift();
    if (!job) return;
    if (job.kind === 'req') {
      this.pending = { lines: [], resolve: job.resolve };
      for (const l of job.lines) this.send(l);
      this.send('isready');
    } else if (job.kind === 'review') {
      this.search = { kind: 'review', entries: [], onEntry: job.onEntry, discard: false, stopped: false, resolve: job.resolve };
      this.send(job.cmd);
    } else {
      this.search = { kind: 'go', infos: [], gameover: null, discard: false, stopped: false, resolve: job.resolve };
      this.send(job.cmd);
    }
  }
}

/**
 * A score at tokens t[i..]: `cp N`, `win N`, `loss N` or `draw`, as
 * { kind, n, len } (len: the tokens it took), or null.
 */
export function parseScoreAt(t, i) {
  const kind = t[i];
  if (kind === 'draw') return { kind, n: 0, len: 1 };
  if ((kind === 'cp' || kind === 'win' || kind === 'loss') && /^-?\d+$/.test(t[i + 1] || '')) {
    return { kind, n: Number(t[i + 1]), len: 2 };
  }
  return null;
}

/** `win 17` and the like as a score (see parseScoreAt), or null. */
export function parseScore(text) {
  const s = parseScoreAt(String(text).trim().split(/\s+/), 0);
  return s ? { kind: s.kind, n: s.n } : null;
}

/**
 * An `info` line as an object: numeric fields as numbers, `score` as
 * { kind, n }, `pv` as a list, `multipv` (1 when the engine sent none, as it
 * does with MultiPV 1). Fields it doesn't know are kept as text.
 */
export function parseInfo(line) {
  const t = line.trim().split(/\s+/);
  const info = { multipv: 1 };
  for (let i = 1; i < t.length; i++) {
    const k = t[i];
    if (k === 'pv') { info.pv = t.slice(i + 1); break; }
    if (k === 'string') { info.string = t.slice(i + 1).join(' '); break; }
    if (k === 'score') {
      const s = parseScoreAt(t, i + 1);
      if (s) { info.score = { kind: s.kind, n: s.n }; i += s.len; }
      continue;
    }
    const v = t[i + 1];
    info[k] = /^-?\d+$/.test(v || '') ? Number(v) : v;
    i++;
  }
  return info;
}

/**
 * The note of a move answered from the opening book, `book MOVE score S
 * depth D` (the text after `info string`), as { move, score, depth }, or null.
 */
export function parseBookNote(text) {
  const t = String(text).trim().split(/\s+/);
  if (t[0] !== 'book' || !t[1] || t[2] !== 'score') return null;
  const score = parseScoreAt(t, 3);
  if (!score || t[3 + score.len] !== 'depth' || !/^\d+$/.test(t[4 + score.len] || '')) return null;
  return { move: t[1], score: { kind: score.kind, n: score.n }, depth: Number(t[4 + score.len]) };
}

/** A `values m1 v1 m2 v2 ...` line (v: `win N`, `loss N`, `draw`) as a Map move -> score. */
export function parseValues(line) {
  const t = line.trim().split(/\s+/);
  const out = new Map();
  if (t[0] !== 'values') return out;
  for (let i = 1; i < t.length;) {
    const move = t[i];
    const s = parseScoreAt(t, i + 1);
    if (!s) break;
    out.set(move, { kind: s.kind, n: s.n });
    i += 1 + s.len;
  }
  return out;
}

/** The verdicts of a review, best to worst. */
export const VERDICTS = ['best', 'good', 'inaccuracy', 'mistake', 'blunder'];

/**
 * A `review ply N move M verdict V loss L best B score S played S depth D
 * nodes N time T [forced] [exact] pv ... [note WORDS]` line as { ply, move,
 * verdict, loss, best, score, played, depth, nodes, time, forced, exact, pv,
 * note (null without one) }, scores as { kind, n } from the mover's view; null
 * when the line is not one.
 */
export function parseReview(line) {
  const t = String(line).trim().split(/\s+/);
  if (t[0] !== 'review') return null;
  const out = { forced: false, exact: false, pv: [], note: null };
  let i = 1;
  for (; i < t.length; i++) {
    const k = t[i];
    if (k === 'forced' || k === 'exact') { out[k] = true; continue; }
    if (k === 'pv' || k === 'note') break;
    if (k === 'score' || k === 'played') {
      const s = parseScoreAt(t, i + 1);
      if (!s) return null;
      out[k] = { kind: s.kind, n: s.n };
      i += s.len;
      continue;
    }
    const v = t[i + 1];
    if (v === undefined) return null;
    // moves stay text; numbers (and fields this page doesn't know) as they read
    out[k] = k !== 'move' && k !== 'best' && /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v;
    i++;
  }
  if (t[i] === 'pv') {
    i++;
    while (i < t.length && t[i] !== 'note') out.pv.push(t[i++]);
  }
  if (t[i] === 'note') out.note = t.slice(i + 1).join(' ');
  const ok = Number.isInteger(out.ply) && out.move && VERDICTS.includes(out.verdict) && typeof out.loss === 'number' && out.best && out.score && out.played;
  return ok ? out : null;
}

/**
 * A `reviewdone complete|stopped black moves N lost X best N good N
 * inaccuracy N mistake N blunder N white moves ...` line as { state, B, W },
 * each side's figures as { moves, lost, best, good, inaccuracy, mistake,
 * blunder }; null when the line is not one.
 */
export function parseReviewDone(line) {
  const t = String(line).trim().split(/\s+/);
  if (t[0] !== 'reviewdone' || (t[1] !== 'complete' && t[1] !== 'stopped')) return null;
  const out = { state: t[1], B: null, W: null };
  let side = null;
  for (let i = 2; i < t.length; i++) {
    if (t[i] === 'black' || t[i] === 'white') {
      side = t[i] === 'black' ? 'B' : 'W';
      out[side] = {};
      continue;
    }
    const v = t[i + 1];
    if (!side || !/^\d+(\.\d+)?$/.test(v || '')) return null;
    out[side][t[i]] = Number(v);
    i++;
  }
  const full = (f) => f && ['moves', 'lost', ...VERDICTS].every((k) => typeof f[k] === 'number');
  return full(out.B) && full(out.W) ? out : null;
}

/** `11-15`, `22x15x8` or `pass` as { text, path, capture, pass }. */
export function parseMove(text) {
  if (text === 'pass') return { text, path: [], capture: false, pass: true };
  const capture = /x/i.test(text);
  const path = text.split(/[-x:]/i).map(Number);
  return { text, path, capture, pass: false };
}

/** A PDN FEN (`B:W21,22:B1,K3`, ranges allowed) as { turn, pieces: Map }. */
export function parseFen(fen) {
  const parts = fen.trim().split(':');
  const turn = parts[0].toUpperCase();
  const pieces = new Map();
  for (const part of parts.slice(1)) {
    const color = part[0].toUpperCase();
    for (let item of part.slice(1).split(',')) {
      item = item.trim();
      if (!item) continue;
      const king = item[0] === 'K' || item[0] === 'k';
      if (king) item = item.slice(1);
      const [a, b] = item.split('-').map(Number);
      for (let n = a; n <= (b || a); n++) pieces.set(n, { color, king });
    }
  }
  return { turn, pieces };
}

/**
 * The reply to `position ...`, `board`, `moves` as { errors, fen, over,
 * legal, values, database } (database: `win`, `draw` or `loss`, the side to
 * move's view, or null).
 */
export function parseBoardReply(lines) {
  const out = { errors: [], fen: null, over: null, legal: [], values: new Map(), database: null };
  for (const l of lines) {
    if (l.startsWith('error')) out.errors.push(l);
    else if (l.startsWith('fen ')) out.fen = l.slice(4).trim();
    else if (l.startsWith('database ')) out.database = l.slice(9).trim();
    else if (l.startsWith('gameover ')) {
      const m = l.match(/^gameover (\S+) (.*)$/);
      out.over = { result: m ? m[1] : '?', text: m ? m[2] : l };
    } else if (l.startsWith('moves ')) {
      const seen = new Set();
      out.legal = l.slice(6).split(/\s+/).filter((t) => t && t !== 'none' && !seen.has(t) && seen.add(t)).map(parseMove);
    } else if (l.startsWith('values ')) out.values = parseValues(l);
  }
  return out;
}

/** Whether the engine's `kingme` reply lists option `name`. */
export function hasOption(lines, name) {
  const want = `option name ${name.toLowerCase()} `;
  return lines.some((l) => l.toLowerCase().startsWith(want));
}

/**
 * The words and default of combo option `name` in the engine's `kingme`
 * reply (`option name Level type combo default max var easy var medium ...`),
 * or null when the engine offers no such option.
 */
export function comboOption(lines, name) {
  const want = `option name ${name.toLowerCase()} type combo `;
  const line = lines.find((l) => l.toLowerCase().startsWith(want));
  if (!line) return null;
  const words = line.split(/\s+/);
  const values = [];
  let dflt = null;
  for (let i = 0; i + 1 < words.length; i++) {
    if (words[i] === 'var') values.push(words[i + 1]);
    else if (words[i] === 'default') dflt = words[i + 1];
  }
  return values.length ? { default: dflt, values } : null;
}
