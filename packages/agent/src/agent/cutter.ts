/**
 * Cutting the periods: for each period over and not yet cut, in order, its energy counted (or
 * stated by a model), its traffic taken, its record signed and written to the spool (synced);
 * only then is the period consumed (its traffic committed, the reading at its start let go), the
 * record handed to the couriers, and the period counted and logged.
 *
 * A record the spool cannot take stops the run: the period and the ones after it are held, their
 * traffic and readings kept, and cut again at the next boundary; every period that came due while
 * the spool could not be written is then signed with the unmetered marker, with all its traffic.
 * A period whose traffic is unknown is signed with the unmetered marker too, and states no
 * traffic: the agent never states what it did not measure.
 *
 * A step of the room clock marks the periods it crossed ({@link PeriodCutter.markStep}): each is
 * signed with the unmetered marker, whatever the energy source (a model's figure is of a whole
 * period the hop did not live); those it marks without traffic state none (not lived, or lived
 * twice).
 */

import { SpoolWriteError } from '../spool/directories.js';
import type { Spool } from '../spool/spool.js';
import type { TrafficSource } from '../traffic/source.js';
import { bytesOut, emptyTraffic, SourceError, type Span, type Traffic } from '../types.js';
import type { AgentCounts } from './counts.js';
import type { Deliveries } from './deliveries.js';
import { type LogSink, SourceState } from './log.js';
import type { CounterReadings } from './readings.js';
import { type CutRecord, type PeriodSigner, type PeriodStatement, signPeriod } from './record.js';

function maxBig(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}

/** Options of a {@link PeriodCutter}. */
export interface PeriodCutterOptions {
  /** P, µs. */
  readonly period: bigint;
  readonly signer: PeriodSigner;
  readonly traffic: TrafficSource;
  readonly readings: CounterReadings;
  readonly deliveries: Deliveries;
  readonly counts: AgentCounts;
  readonly log: LogSink;
  /** Called with each record cut. */
  readonly onRecord?: ((cut: CutRecord) => void) | undefined;
}

/**
 * Periods a step of the room clock crossed: those meeting [`from`, `to`) are signed with the
 * unmetered marker for `why`; with `noTraffic`, those within it state no traffic either.
 */
export interface StepMark {
  readonly from: bigint;
  readonly to: bigint;
  readonly why: string;
  readonly noTraffic: boolean;
}

/** The traffic of a span, or why it is unknown. */
export type Taken = { readonly traffic: Traffic } | { readonly unknown: string };

/** Cuts the periods of an agent (see the module's comment). */
export class PeriodCutter {
  /** The next span to cut starts here. */
  lastEnd = 0n;
  /** Where records are written: none before the agent starts, or in a dry run. */
  spool: Spool | undefined;
  /** Periods ending at or before this came due while the spool could not be written. */
  private heldUpTo = 0n;
  /** Why they could not be written (the error's code). */
  private heldCause = '';
  /** Why the spool cannot be written, while it cannot (said once). */
  private spoolFault: string | undefined;
  /** Whether the traffic source reads (a failure said once, until it reads again). */
  private readonly trafficState: SourceState;
  /** The periods steps of the room clock crossed, not all cut yet. */
  private marks: StepMark[] = [];
  private stopped = false;

  constructor(private readonly o: PeriodCutterOptions) {
    this.trafficState = new SourceState(o.log, 'traffic', o.traffic.describe);
  }

  /**
   * Cuts every period over by `boundary` not yet cut, in order. A period whose record cannot be
   * written to the spool stops the run: it and the periods after it are cut again at the next
   * boundary, their traffic and readings kept meanwhile, and every period that came due while
   * the spool could not be written is signed with the unmetered marker.
   */
  async cutUpTo(boundary: bigint): Promise<void> {
    const P = this.o.period;
    this.marks = this.marks.filter((m) => m.to > this.lastEnd);
    while (this.lastEnd + P <= boundary && !this.stopped) {
      const rec = await this.cut({ start: this.lastEnd, end: this.lastEnd + P });
      if (rec === undefined) {
        if (boundary > this.heldUpTo) this.heldUpTo = boundary;
        break;
      }
    }
    // A reading before the first period not yet held is of no period that can be metered.
    this.o.readings.dropBefore(maxBig(this.lastEnd, this.heldUpTo));
  }

  /** Marks the periods a step of the room clock crossed (see the module's comment). */
  markStep(mark: StepMark): void {
    if (mark.to > mark.from && mark.to > this.lastEnd) this.marks.push(mark);
  }

  /** What the steps of the room clock say of a span: why it is unmetered, and its traffic. */
  private stepOf(span: Span): { why?: string; noTraffic?: string } {
    const met = this.marks.filter((m) => span.start < m.to && span.end > m.from);
    const within = met.find((m) => m.noTraffic && span.start >= m.from && span.end <= m.to);
    if (within !== undefined) return { why: within.why, noTraffic: within.why };
    return met.length === 0 ? {} : { why: met[0]!.why };
  }

  /** The traffic of a span, or why it is unknown (said once until the source reads again). */
  async takeTraffic(span: Span): Promise<Taken> {
    let t: Traffic | undefined;
    try {
      t = await this.o.traffic.take(span);
    } catch (err) {
      if (!(err instanceof SourceError)) throw err;
      this.o.counts.sourceErrors++;
      this.trafficState.failed(err.message);
      return { unknown: `traffic unknown: ${err.message}` };
    }
    if (t === undefined) {
      return { unknown: 'traffic unknown: the traffic source has no reading at both boundaries' };
    }
    this.trafficState.read();
    return { traffic: t };
  }

  /** Signs the record of a period (`record.ts`). */
  sign(p: PeriodStatement): CutRecord {
    return signPeriod(this.o.signer, p);
  }

  /**
   * Signs the record of a span and writes it to the spool; once it is there, the span's traffic
   * and reading are consumed and the record is sent. `undefined` when the spool could not be
   * written (said once, with the path and the fix): nothing is consumed.
   */
  private async cut(span: Span): Promise<CutRecord | undefined> {
    const energy = this.o.readings.counted(span);
    const read = await this.takeTraffic(span);
    const step = this.stepOf(span);
    // A period a step of the room clock leaves without traffic: whatever its lines are, they
    // are not its own (not lived, or lived twice), and are not stated.
    const taken: Taken = step.noTraffic === undefined ? read : { unknown: step.noTraffic };
    let why: string | undefined;
    if (span.end <= this.heldUpTo) {
      why = `the spool could not be written when the period was due (${this.heldCause})`;
    } else if (step.why !== undefined) why = step.why;
    else if (energy !== undefined && 'why' in energy) why = energy.why;
    else if ('unknown' in taken) why = taken.unknown;
    const traffic = 'traffic' in taken ? taken.traffic : emptyTraffic();
    const rec = this.sign({
      span,
      traffic,
      counted: energy !== undefined && 'joules' in energy ? energy.joules : undefined,
      why,
      trafficUnknown: 'unknown' in taken ? taken.unknown : undefined,
    });
    if (this.spool !== undefined && !this.spooled(rec)) return undefined;
    try {
      this.o.traffic.commit?.(span);
    } catch {
      // a source that cannot let go of a period's lines keeps them: they are not stated twice
    }
    this.lastEnd = span.end;
    const c = this.o.counts;
    c.periods.set(rec.fields.class, (c.periods.get(rec.fields.class) ?? 0) + 1);
    c.joules += rec.fields.joules;
    c.bytes += bytesOut(traffic);
    c.sessions = traffic.sessions;
    c.lastEnd = span.end;
    this.o.onRecord?.(rec);
    this.o.deliveries.logPeriod(rec, traffic);
    return rec;
  }

  /**
   * Writes a record, with the counter's reading at its end, to the spool, and hands it to the
   * couriers; false when the spool could not be written (said once, until it can again).
   */
  private spooled(rec: CutRecord): boolean {
    const spool = this.spool!;
    const { span } = rec;
    const item = { name: rec.name, start: span.start, end: span.end, bytes: rec.bytes };
    try {
      spool.add(item, this.o.readings.at(span.end));
    } catch (err) {
      if (!(err instanceof SpoolWriteError)) throw err;
      this.o.counts.spoolErrors++;
      if (this.spoolFault === undefined) {
        this.o.log({
          level: 'error',
          msg: 'spool not writable: the periods are held, and signed unmetered once it is',
          error: err.message,
        });
      }
      this.spoolFault = err.message;
      this.heldCause = err.code;
      return false;
    }
    if (this.spoolFault !== undefined) {
      this.o.log({ msg: 'spool writable again', spool: spool.dir });
      this.spoolFault = undefined;
    }
    this.o.deliveries.push(item);
    return true;
  }

  /** No more periods are cut (the one being cut ends). */
  stop(): void {
    this.stopped = true;
  }
}
