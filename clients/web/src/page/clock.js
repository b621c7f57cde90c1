// The game clock of human-vs-engine games: each side has `base` ms and gains
// `inc` ms after each of its moves; the side to move's time runs. The engine
// is told both clocks (`go wtime .. btime .. winc .. binc ..`). Pure: the
// caller passes the time (ms), so node can test it.

export class Clock {
  constructor(baseMs, incMs, now) {
    this.base = baseMs;
    this.inc = incMs;
    this.left = { B: baseMs, W: baseMs };
    this.side = null; // whose time runs; null: stopped
    this.since = now;
  }

  /** Time left for `side` at `now`. */
  remaining(side, now) {
    const run = this.side === side ? now - this.since : 0;
    return Math.max(0, this.left[side] - run);
  }

  /** Starts (or keeps) `side`'s time running. */
  run(side, now) {
    if (this.side === side) return;
    this.pause(now);
    this.side = side;
    this.since = now;
  }

  /** Stops the running time, keeping what is left. */
  pause(now) {
    if (this.side) this.left[this.side] = this.remaining(this.side, now);
    this.side = null;
    this.since = now;
  }

  /** `mover` moved at `now`: their time stops, the increment is added, `next`'s time runs. */
  moved(mover, next, now) {
    if (this.side === mover) this.pause(now);
    this.left[mover] += this.inc;
    this.run(next, now);
  }

  /** The side whose time has run out, or null. */
  flagged(now) {
    return this.side && this.remaining(this.side, now) <= 0 ? this.side : null;
  }

  /** The `go` command for the engine to move with these clocks. */
  goCmd(now) {
    const t = (c) => Math.round(this.remaining(c, now));
    return `go wtime ${t('W')} btime ${t('B')} winc ${this.inc} binc ${this.inc}`;
  }
}

/** `m:ss` (and tenths under 10 s). */
export function clockText(ms) {
  const s = Math.max(0, ms) / 1000;
  if (s < 9.95) return `0:0${s.toFixed(1)}`;
  const whole = Math.ceil(s);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, '0')}`;
}
