/**
 * The hop agent: cuts one per-hop record (`WMH1`, companion C5) of every period [kP, (k+1)P) of
 * the room clock (§5.1), signs it, spools it (synced) and delivers it to every steering server,
 * well within the lag L after the period ends.
 *
 * A period's energy, from a counter, is the increase between the counter's readings at its two
 * boundaries; a period without both readings, or whose readings a clock step separates (the room
 * clock and the monotonic clock disagree on the time between them), is signed with the unmetered
 * marker (class 0, joules 0; C5.2), never skipped and never invented. A model states every
 * period. Spans are never cut twice: the spool's cursor holds the last span's end, and after a
 * restart the agent cuts every period from there (the missed ones unmetered, for a counter,
 * up to `backfill` periods) before it resumes on time.
 *
 * A step of the room clock (the system clock set forward or back) is said once, with what is
 * done of the periods it crossed (`steps.ts`): none signed twice, none stated unmeasured.
 *
 * Nothing of a period is consumed before its record is durably in the spool: its traffic is
 * committed, and the reading at its start let go, only then. A period that came due while the
 * spool could not be written, or whose traffic is unknown, is signed with the unmetered marker:
 * the agent never states what it did not measure.
 *
 * This file composes the agent's parts and holds its life (start, the boundaries, `--once`,
 * stop): the period clock (`period-clock.ts`), the counter's readings (`readings.ts`), the
 * cutting of periods (`cutter.ts`, signing in `record.ts`), the couriers and the period's log line
 * (`deliveries.ts`); the spool is `../spool/`.
 */
import { formatDuration } from '@wai-steering/config-text';
import type { RoomContext } from '@wai-steering/verifier';
import { toHex } from '@wai-steering/wire';
import type { Courier, Transport } from '../delivery.js';
import type { EnergySource } from '../energy/source.js';
import { checkHopKey, type HopKey } from '../keys.js';
import { Spool } from '../spool/spool.js';
import type { TrafficSource } from '../traffic/source.js';
import { AgentConfigError, emptyTraffic, type Span } from '../types.js';
import { type AgentCounts, newCounts } from './counts.js';
import { PeriodCutter } from './cutter.js';
import { Deliveries } from './deliveries.js';
import { instantField, type LogSink, stampedLog, stderrSink } from './log.js';
import {
  type ClockStep,
  defaultCutDelay,
  defaultTolerance,
  firstSpanStart,
  PeriodClock,
  performanceClock,
  sleep,
  systemClock,
} from './period-clock.js';
import { CounterReadings } from './readings.js';
import type { CutRecord } from './record.js';
import { readStep, stepLine } from './steps.js';

/** Options of a {@link HopAgent}. */
export interface HopAgentOptions {
  /** The room: opened (the key is checked against its key log at start), or its id alone. */
  readonly room: RoomContext | Uint8Array;
  readonly key: HopKey;
  /** P, µs: the policy's `period_us`. */
  readonly period: bigint;
  /** L, µs: the policy's `lag_us` (default P / 4). */
  readonly lag?: bigint;
  readonly energy: EnergySource;
  readonly traffic: TrafficSource;
  /** The steering servers' base URLs (`http://host:port`); each gets every record. */
  readonly servers: readonly string[];
  /** The spool directory (required unless `dryRun`). */
  readonly spool?: string;
  /** The room clock, µs since the epoch (default the system clock). */
  readonly clock?: () => bigint;
  /** A monotonic clock, µs (default `performance.now`), to detect a step of the room clock. */
  readonly monotonic?: () => bigint;
  /** How records reach a server (default `POST <server>/records` with fetch). */
  readonly transport?: Transport;
  /** How long after a period's end its traffic is taken, µs (default min(L/2, P/5, 1 s)). */
  readonly cutDelay?: bigint;
  /** How far from its boundary a reading may be, and a clock from the other, µs. */
  readonly tolerance?: bigint;
  readonly backoff?: { readonly initialMs: number; readonly maxMs: number };
  /** A structured log line (default: JSON on stderr). */
  readonly log?: (line: Record<string, unknown>) => void;
  /** On a spool with no cursor, periods before the current one to cut at start (default 0). */
  readonly history?: number;
  /** After a restart, the most periods it fills (default 10 000). */
  readonly backfill?: number;
  /** Cut and sign, but neither spool nor send. */
  readonly dryRun?: boolean;
  /** Records every server took kept in `done/` (default 10 000). */
  readonly keep?: number;
  /** Called with each record cut. */
  readonly onRecord?: (cut: CutRecord) => void;
  /**
   * No timer of its own: the caller drives it with {@link HopAgent.poll} (a test or a simulation
   * that moves its own clock).
   */
  readonly manual?: boolean;
}

/** The hop agent (see the module's comment). */
export class HopAgent {
  readonly P: bigint;
  readonly L: bigint;
  /** Counters of {@link metrics}. */
  readonly counts: AgentCounts = newCounts();
  private readonly cutDelayUs: bigint;
  private readonly log: LogSink;
  private readonly clock: PeriodClock;
  private readonly readings: CounterReadings;
  private readonly deliveries: Deliveries;
  private readonly cutter: PeriodCutter;
  private chain: Promise<void> = Promise.resolve();
  private started = false;
  private stopped = false;

  constructor(private readonly o: HopAgentOptions) {
    if (o.period <= 0n) throw new TypeError('period: expected a positive number of µs');
    if (o.spool === undefined && o.dryRun !== true) {
      throw new TypeError('spool: required unless dryRun');
    }
    this.P = o.period;
    this.L = o.lag ?? o.period / 4n;
    this.cutDelayUs = o.cutDelay ?? defaultCutDelay(this.P, this.L);
    const tolerance = o.tolerance ?? defaultTolerance(this.P);
    this.log = stampedLog(o.log ?? stderrSink);
    this.clock = new PeriodClock({
      period: this.P,
      tolerance,
      clock: o.clock ?? systemClock,
      monotonic: o.monotonic ?? performanceClock,
      manual: o.manual === true,
      log: this.log,
      onStep: (step) => this.stepped(step),
      onTimer: () => {
        this.wake().catch((e: unknown) => {
          // A record that could not be signed or spooled (a full disk): said, and its span is
          // cut again at the next boundary.
          this.log({
            level: 'error',
            msg: 'a period could not be cut',
            error: (e as Error).message,
          });
        });
      },
    });
    this.readings = new CounterReadings({
      energy: o.energy,
      tolerance,
      log: this.log,
      counts: this.counts,
    });
    this.deliveries = new Deliveries({
      servers: o.servers,
      lag: this.L,
      transport: o.transport,
      backoff: o.backoff,
      dryRun: o.dryRun === true,
      log: this.log,
    });
    this.cutter = new PeriodCutter({
      period: this.P,
      signer: { room: this.roomId, key: o.key, energy: o.energy },
      traffic: o.traffic,
      readings: this.readings,
      deliveries: this.deliveries,
      counts: this.counts,
      log: this.log,
      onRecord: o.onRecord,
    });
  }

  /** A step of the room clock between two wakes: the periods it crossed marked, and said. */
  private stepped(step: ClockStep): void {
    const read = readStep(step, this.P);
    for (const m of read.marks) this.cutter.markStep(m);
    this.log(stepLine(step, read, this.cutter.lastEnd, this.clock.nextBoundary));
  }

  private get roomId(): Uint8Array {
    return this.o.room instanceof Uint8Array ? this.o.room : this.o.room.roomId;
  }

  /** The class the agent states when it can measure. */
  get class(): number {
    return this.o.energy.class;
  }

  /** What the agent reads: its energy source (kind, class stated) and its traffic source. */
  get sources(): {
    readonly energy: {
      readonly kind: EnergySource['kind'];
      readonly class: number;
      readonly describe: string;
    };
    readonly traffic: { readonly describe: string };
  } {
    const e = this.o.energy;
    return {
      energy: { kind: e.kind, class: e.class, describe: e.describe },
      traffic: { describe: this.o.traffic.describe },
    };
  }

  /**
   * The checks of {@link start} without starting (`wai-steer doctor`): the key against the key
   * log (C5.4), a counter read once, the traffic source opened and closed. Every problem, each
   * one line naming what to fix; empty when all is well. The agent must not be started.
   */
  async probe(): Promise<string[]> {
    if (this.started) throw new TypeError('probe: the agent is started');
    const problems: string[] = [];
    try {
      this.checkKey();
    } catch (err) {
      problems.push((err as Error).message);
    }
    const e = this.o.energy;
    if (e.kind === 'counter') {
      try {
        await e.read();
      } catch (err) {
        problems.push(`energy source ${e.describe}: ${(err as Error).message}`);
      }
    }
    try {
      await this.o.traffic.start(this.clock.current(), this.P);
    } catch (err) {
      problems.push(`traffic source ${this.o.traffic.describe}: ${(err as Error).message}`);
    } finally {
      await this.o.traffic.close().catch(() => undefined);
    }
    return problems;
  }

  /** C5.4: the hop's key may sign records of its class in the room (when the room is opened). */
  private checkKey(): void {
    if (!(this.o.room instanceof Uint8Array)) {
      checkHopKey(this.o.room, this.o.key.publicKey, this.o.energy.class);
    }
  }

  /** Starts the traffic source; one that cannot start refuses the start, naming it. */
  private async startTraffic(from: bigint, period: bigint): Promise<void> {
    try {
      await this.o.traffic.start(from, period);
    } catch (err) {
      throw new AgentConfigError(
        `traffic source ${this.o.traffic.describe}: ${(err as Error).message}`,
      );
    }
  }

  /**
   * Checks the key, opens the spool (resending what it holds), starts the traffic source, cuts
   * the periods since the spool's last span, and runs on the period. Throws an
   * {@link AgentConfigError} for a key the key log does not grant or an unreadable source.
   */
  async start(): Promise<void> {
    if (this.started) throw new TypeError('the agent is started');
    this.started = true;
    this.checkKey();
    const e = this.o.energy;
    if (e.kind === 'counter') {
      // An unreadable source refuses the start (one line naming it), rather than signing
      // every period unmetered.
      try {
        await e.read();
      } catch (err) {
        throw new AgentConfigError(`energy source ${e.describe}: ${(err as Error).message}`);
      }
    }
    if (this.o.dryRun !== true) {
      const spool = new Spool(this.o.spool!, this.o.servers, {
        ...(this.o.keep === undefined ? {} : { keep: this.o.keep }),
        hop: this.o.key.publicKey,
        room: this.roomId,
        onRefused: (file, reason) => {
          this.counts.spoolRefused++;
          this.log({
            level: 'error',
            msg: 'spool file does not read: moved to refused/',
            file,
            reason,
          });
        },
      });
      this.cutter.spool = spool;
      this.deliveries.open(spool);
    }
    const cursor = this.cutter.spool?.cursor();
    const cur = this.clock.current();
    const { from, notFilled } = firstSpanStart({
      cursorEnd: cursor?.end,
      current: cur,
      period: this.P,
      counter: e.kind === 'counter',
      history: this.o.history ?? 0,
      backfill: this.o.backfill ?? 10_000,
    });
    if (cursor !== undefined) {
      if (notFilled !== undefined) {
        this.log({
          level: 'warn',
          msg: 'periods not filled: more than the backfill limit since the last record',
          ...instantField('from', notFilled.from),
          ...instantField('to', notFilled.to),
        });
      }
      this.readings.restore(cursor, cur);
      this.log({ msg: 'resuming', ...instantField('from', from) });
      if (from > cur + this.P) {
        // The room clock is behind the last span signed (set back while the agent was down).
        this.log({
          level: 'warn',
          msg: 'the room clock is before the end of the last span signed: the spans before it are not signed again; nothing is signed until the room clock reaches it',
          ...instantField('now', this.clock.now()),
          ...instantField('waits_until', from),
        });
      }
    }
    await this.startTraffic(from, this.P);
    this.cutter.lastEnd = from;
    this.log({
      msg: 'started',
      hop: toHex(this.o.key.publicKey),
      class: e.class,
      energy: e.describe,
      traffic: this.o.traffic.describe,
      period: formatDuration(this.P),
      period_us: String(this.P),
      lag: formatDuration(this.L),
      lag_us: String(this.L),
      servers: this.o.servers,
      spool: this.o.spool ?? null,
      dryRun: this.o.dryRun === true,
    });
    // The periods already over since the last record: cut now.
    await this.cutter.cutUpTo(cur);
    this.clock.runFrom(cur + this.P);
  }

  /**
   * Does what the clock makes due now: at a period boundary, reads the counter and cuts the
   * periods over; resolves when they are cut and spooled (not when they are delivered).
   */
  async poll(): Promise<void> {
    await this.wake();
    await this.chain;
  }

  private async wake(): Promise<void> {
    if (this.stopped) return;
    const b = this.clock.due();
    if (b === undefined) return;
    await this.readings.readAt(b);
    if (b.onTime) {
      try {
        await this.o.traffic.mark?.(b.boundary);
      } catch {
        // a traffic source that cannot be read states no traffic for its periods
      }
    }
    const run = async () => {
      await sleep(Number(this.cutDelayUs) / 1000);
      if (this.stopped) return;
      await this.cutter.cutUpTo(b.boundary);
    };
    this.chain = this.chain.then(run, run);
    await this.chain;
  }

  /**
   * Cuts one record of `span` and returns it, neither spooled nor sent (`--once`): a span not
   * yet over is awaited (a counter read at its start and at its end); a span already over is
   * stated by a model, or unmetered by a counter, which reads only what it sees begin. The agent
   * must not be started.
   */
  async cutOnce(span: Span): Promise<CutRecord> {
    if (this.started) throw new TypeError('cutOnce: the agent is started');
    if (span.end <= span.start) throw new TypeError('cutOnce: the span ends before it starts');
    this.started = true;
    this.checkKey();
    await this.startTraffic(span.start, span.end - span.start);
    const e = this.o.energy;
    let joules: bigint | undefined;
    let why: string | undefined;
    const read = async () => {
      if (e.kind !== 'counter') return undefined;
      try {
        return await e.read();
      } catch (err) {
        throw new AgentConfigError(`energy source ${e.describe}: ${(err as Error).message}`);
      }
    };
    if (e.kind === 'counter') {
      if (this.clock.now() > span.start + this.clock.tolerance) {
        why = 'the span began before the agent read the counter';
      } else {
        await this.clock.until(span.start);
        const a = await read();
        await this.clock.until(span.end);
        const b = await read();
        const d = e.between(a!, b!);
        if (typeof d === 'string') why = d;
        else joules = d;
      }
    }
    await this.clock.until(span.end + this.cutDelayUs);
    try {
      await this.o.traffic.mark?.(span.start);
      const taken = await this.cutter.takeTraffic(span);
      const traffic = 'traffic' in taken ? taken.traffic : emptyTraffic();
      const unknown = 'unknown' in taken ? taken.unknown : undefined;
      return this.cutter.sign({
        span,
        traffic,
        counted: joules,
        why: why ?? unknown,
        trafficUnknown: unknown,
      });
    } finally {
      await this.o.traffic.close();
    }
  }

  /** Whether it is cutting on time: the last period cut ended at most one period ago. */
  health(): { ok: boolean; lastEnd: bigint; pending: Record<string, number> } {
    const due = this.clock.current() - this.P;
    const lastEnd = this.cutter.lastEnd;
    return {
      ok: this.started && !this.stopped && lastEnd >= due,
      lastEnd,
      pending: this.deliveries.pending(),
    };
  }

  /** Resolves when every server has taken every record spooled so far (or `timeoutMs` passed). */
  delivered(timeoutMs = 30_000): Promise<boolean> {
    return this.deliveries.delivered(timeoutMs);
  }

  /** The delivery workers, one per server. */
  get servers(): readonly Courier[] {
    return this.deliveries.servers;
  }

  /** Stops: no more periods; the requests in flight end; the spool keeps what is not taken. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.clock.stop();
    this.cutter.stop();
    await this.chain.catch(() => undefined);
    await this.deliveries.stop();
    await this.o.traffic.close();
  }
}
