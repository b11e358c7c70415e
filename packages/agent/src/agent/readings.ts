/**
 * A counter's readings at the period boundaries, and a period's energy from them: the increase
 * of the counter between the readings at its two boundaries (docs/metering.md). A period without
 * both readings (the first after a start, a counter that could not be read, a boundary seen too
 * late), or whose readings a step of the room clock separates, cannot be stated: it is signed
 * with the unmetered marker (C5.2), never prorated. A reading is kept until the record of the
 * period it starts is durably in the spool, so that a period held while the spool cannot be
 * written is metered once it can.
 */
import type { CounterReading, EnergySource } from '../energy/source.js';
import type { Cursor } from '../spool/cursor.js';
import type { Span } from '../types.js';
import type { AgentCounts } from './counts.js';
import { type LogSink, SourceState } from './log.js';
import { type Boundary, type ClockReading, clockStepped } from './period-clock.js';

/** A counter's reading at a boundary, and when it was taken. */
export interface Reading extends ClockReading {
  readonly boundary: bigint;
  readonly reading: CounterReading;
}

/** Options of {@link CounterReadings}. */
export interface CounterReadingsOptions {
  readonly energy: EnergySource;
  /** How far the room clock may drift from the monotonic clock over a period, µs. */
  readonly tolerance: bigint;
  readonly log: LogSink;
  readonly counts: AgentCounts;
}

/** The energy a span's readings state, or why they cannot. */
export type Counted = { readonly joules: bigint } | { readonly why: string };

/** A counter's readings at boundaries not yet behind a durable record. */
export class CounterReadings {
  private readonly byBoundary = new Map<bigint, Reading>();
  /** Whether the counter reads (a failure said once, until it reads again). */
  private readonly state: SourceState;

  constructor(private readonly o: CounterReadingsOptions) {
    this.state = new SourceState(o.log, 'energy', o.energy.describe);
  }

  /**
   * Reads the counter at a boundary the room clock reached, and keeps the reading when it is on
   * time. A counter that cannot be read is said once (until it reads again) and counted; the
   * periods it bounds are unmetered. Nothing for a source that is not a counter.
   */
  async readAt(b: Boundary): Promise<void> {
    const e = this.o.energy;
    if (e.kind !== 'counter') return;
    try {
      const r = await e.read();
      this.state.read();
      if (b.onTime) {
        this.byBoundary.set(b.boundary, {
          boundary: b.boundary,
          reading: r,
          at: b.at,
          mono: b.mono,
        });
      }
    } catch (err) {
      this.o.counts.sourceErrors++;
      this.state.failed((err as Error).message);
    }
  }

  /**
   * Restarted within the period after the last one cut (the cursor's end is the start of the
   * current period): the counter's reading the cursor holds there is the period's start.
   */
  restore(cursor: Cursor, current: bigint): void {
    if (this.o.energy.kind !== 'counter' || cursor.reading === undefined) return;
    if (cursor.end !== current) return;
    this.byBoundary.set(current, {
      boundary: current,
      reading: cursor.reading,
      at: current,
      mono: undefined,
    });
  }

  /** The reading kept at a boundary (for the spool's cursor). */
  at(boundary: bigint): CounterReading | undefined {
    return this.byBoundary.get(boundary)?.reading;
  }

  /**
   * The energy of a span from the counter's readings, or why it cannot be stated; `undefined`
   * for a source that is not a counter.
   */
  counted(span: Span): Counted | undefined {
    const e = this.o.energy;
    if (e.kind !== 'counter') return undefined;
    const a = this.byBoundary.get(span.start);
    const b = this.byBoundary.get(span.end);
    if (a === undefined) return { why: 'no reading at the period start' };
    if (b === undefined) return { why: 'no reading at the period end' };
    if (clockStepped(a, b, this.o.tolerance)) {
      return { why: 'the room clock stepped within the period' };
    }
    const d = e.between(a.reading, b.reading);
    return typeof d === 'string' ? { why: d } : { joules: d };
  }

  /** Lets go of the readings before `boundary`: they bound no period that can still be metered. */
  dropBefore(boundary: bigint): void {
    for (const k of [...this.byBoundary.keys()]) if (k < boundary) this.byBoundary.delete(k);
  }
}
