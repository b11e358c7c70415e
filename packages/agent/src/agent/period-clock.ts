/**
 * The period clock: the periods [kP, (k+1)P) of the room clock (§5.1), and the timer that wakes
 * the agent at each boundary. The room clock is µs since the epoch (the system clock by default);
 * a monotonic clock beside it shows a step of the room clock (the two disagree, between two
 * readings, by more than the tolerance, min(P/4, 2 s) by default: {@link clockStepped}). The timer
 * wakes at least every second, so that a step is seen within one; a boundary it wakes for past the
 * tolerance, or sleeps past entirely, is said (`woken late`): no reading there.
 *
 * Every wake also compares the two clocks with the wake before it: when the room clock moved
 * more than the tolerance away from the monotonic clock (the system clock set forward or back),
 * the step is told ({@link PeriodClockOptions.onStep}) rather than each boundary it jumped over
 * said late.
 *
 * Where the cutting starts is the clock's too ({@link firstSpanStart}): after a restart, from the
 * spool cursor's end (at most `backfill` periods back), so that no span is cut twice; on a fresh
 * spool, the next whole period for a counter, the current one for a model.
 */
import type { LogSink } from './log.js';

/** The room clock by default: the system clock, µs since the epoch. */
export const systemClock = (): bigint => BigInt(Date.now()) * 1000n;

/** The monotonic clock by default: `performance.now`, µs. */
export const performanceClock = (): bigint => BigInt(Math.round(performance.now() * 1000));

/** Resolves after `ms`, on a timer that does not keep the process alive. */
export const sleep = (ms: number) =>
  new Promise<void>((r) => {
    setTimeout(r, Math.max(0, ms)).unref?.();
  });

function minBig(...xs: bigint[]): bigint {
  let m = xs[0]!;
  for (const x of xs) if (x < m) m = x;
  return m;
}

/**
 * How far from its boundary a reading may be, and a clock from the other, by default:
 * min(P/4, 2 s).
 */
export function defaultTolerance(period: bigint): bigint {
  return minBig(period / 4n, 2_000_000n);
}

/** How long after a period's end its traffic is taken, by default: min(L/2, P/5, 1 s). */
export function defaultCutDelay(period: bigint, lag: bigint): bigint {
  return minBig(lag / 2n, period / 5n, 1_000_000n);
}

/** An instant read on both clocks: the room clock's µs and the monotonic clock's. */
export interface ClockReading {
  readonly at: bigint;
  /** Undefined for an instant of another process (a reading restored from the spool). */
  readonly mono: bigint | undefined;
}

/**
 * Whether the room clock stepped between two instants: the room clock and the monotonic clock
 * disagree on the time between them by more than `tolerance`. Unknown (false) when either
 * instant has no monotonic reading.
 */
export function clockStepped(a: ClockReading, b: ClockReading, tolerance: bigint): boolean {
  if (a.mono === undefined || b.mono === undefined) return false;
  const room = b.at - a.at;
  const mono = b.mono - a.mono;
  return room - mono > tolerance || mono - room > tolerance;
}

/** Where the agent starts cutting, from the spool's cursor (or none). */
export interface FirstSpanOptions {
  /** The end of the last span cut (the spool's cursor), if any. */
  readonly cursorEnd: bigint | undefined;
  /** The start of the current period. */
  readonly current: bigint;
  readonly period: bigint;
  /** Whether the energy source is a counter (it states only the periods it sees begin). */
  readonly counter: boolean;
  /** On a spool with no cursor, periods before the current one to cut. */
  readonly history: number;
  /** After a restart, the most periods it fills. */
  readonly backfill: number;
}

/**
 * The start of the first span to cut: the cursor's end, or, when that is more than `backfill`
 * periods back, `backfill` periods back (`notFilled` the periods left out); with no cursor,
 * `history` periods back, or else the next whole period for a counter and the current one for
 * any other source.
 */
export function firstSpanStart(o: FirstSpanOptions): {
  from: bigint;
  notFilled?: { from: bigint; to: bigint };
} {
  if (o.cursorEnd !== undefined) {
    const limit = o.current - BigInt(o.backfill) * o.period;
    if (o.cursorEnd < limit) return { from: limit, notFilled: { from: o.cursorEnd, to: limit } };
    return { from: o.cursorEnd };
  }
  const history = BigInt(o.history);
  if (history > 0n) return { from: o.current - history * o.period };
  return { from: o.counter ? o.current + o.period : o.current };
}

/** A boundary the room clock reached. */
export interface Boundary extends ClockReading {
  /** The boundary, a multiple of P. */
  readonly boundary: bigint;
  /** The monotonic clock when it was seen. */
  readonly mono: bigint;
  /** Seen within the tolerance after the boundary: a reading there is the boundary's. */
  readonly onTime: boolean;
}

/** A step of the room clock, seen between two wakes: both clocks at each. */
export interface ClockStep {
  readonly before: { readonly at: bigint; readonly mono: bigint };
  readonly after: { readonly at: bigint; readonly mono: bigint };
}

/** Options of a {@link PeriodClock}. */
export interface PeriodClockOptions {
  /** P, µs. */
  readonly period: bigint;
  readonly tolerance: bigint;
  /** The room clock, µs since the epoch. */
  readonly clock: () => bigint;
  /** A monotonic clock, µs. */
  readonly monotonic: () => bigint;
  /** No timer: the caller asks for the boundaries due ({@link PeriodClock.due}). */
  readonly manual: boolean;
  readonly log: LogSink;
  /** Called when the timer fires; the callee asks for the boundary due. */
  readonly onTimer: () => void;
  /** Called when a wake finds the room clock stepped since the wake before it. */
  readonly onStep?: (step: ClockStep) => void;
}

/** The periods of the room clock, and the timer (see the module's comment). */
export class PeriodClock {
  readonly P: bigint;
  readonly tolerance: bigint;
  /** The next boundary to wake for. */
  private next = 0n;
  /** Both clocks at the last wake, to see a step of the room clock from one wake to the next. */
  private seen: { at: bigint; mono: bigint } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly o: PeriodClockOptions) {
    this.P = o.period;
    this.tolerance = o.tolerance;
  }

  /** The room clock now, µs. */
  now(): bigint {
    return this.o.clock();
  }

  /** The start of the period `t` is in. */
  floor(t: bigint): bigint {
    return (t / this.P) * this.P;
  }

  /** The start of the current period. */
  current(): bigint {
    return this.floor(this.now());
  }

  /** The next boundary it wakes for. */
  get nextBoundary(): bigint {
    return this.next;
  }

  /** Wakes for `next` and every boundary after it. */
  runFrom(next: bigint): void {
    this.next = next;
    this.seen = { at: this.o.clock(), mono: this.o.monotonic() };
    this.schedule();
  }

  /** Whether the room clock stepped since the last wake (then told); both clocks kept. */
  private stepped(at: bigint, mono: bigint): boolean {
    const before = this.seen;
    this.seen = { at, mono };
    if (before === undefined || !clockStepped(before, { at, mono }, this.tolerance)) return false;
    this.o.onStep?.({ before, after: { at, mono } });
    return true;
  }

  /**
   * The boundary the room clock has reached since the last one, or `undefined` when it has not;
   * the timer is set again either way. A boundary seen past the tolerance is said.
   */
  due(): Boundary | undefined {
    const now = this.o.clock();
    const mono = this.o.monotonic();
    const stepped = this.stepped(now, mono);
    if (now < this.next) {
      this.schedule();
      return undefined;
    }
    const boundary = this.floor(now);
    // The boundaries it slept past (a process stalled for more than a period): none was read. A
    // step of the room clock is said once, by the one it is told to.
    if (this.next > 0n && !stepped) {
      for (let m = this.next; m < boundary; m += this.P) this.late(m, now);
    }
    this.next = boundary + this.P;
    this.schedule();
    const onTime = now - boundary <= this.tolerance;
    if (!onTime && !stepped) this.late(boundary, now);
    return { boundary, at: now, mono, onTime };
  }

  /** Says that a boundary was not read: the clock woke `now`, past its tolerance. */
  private late(boundary: bigint, now: bigint): void {
    this.o.log({
      level: 'warn',
      msg: 'woken late: no reading at the boundary; the periods it bounds are signed unmetered',
      boundary: String(boundary),
      late_us: String(now - boundary),
    });
  }

  private schedule(): void {
    if (this.stopped || this.o.manual) return;
    const wait = Number(this.next - this.o.clock()) / 1000;
    // Woken at least every second, so that a step of the room clock is seen within one.
    this.timer = setTimeout(this.o.onTimer, Math.min(1000, Math.max(0, wait)));
  }

  /**
   * Resolves once the room clock reaches `t`, looking at least every second. Its timers hold
   * the process (`--once` has nothing else keeping it alive while it waits).
   */
  async until(t: bigint): Promise<void> {
    for (let now = this.now(); now < t; now = this.now()) {
      await new Promise<void>((r) => setTimeout(r, Math.min(1000, Number(t - now) / 1000)));
    }
  }

  /** No more timers. */
  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
  }
}
