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
 * This file is the agent's one cohesive loop (periods, energy, cutting, logging); delivery and
 * the spool are beside it.
 */
import { createHash } from 'node:crypto';
import { formatDuration, formatInstant } from '@wai-steering/config-text';
import type { RoomContext } from '@wai-steering/verifier';
import { type HopRecordFields, signHopRecord, toHex } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { Courier, httpTransport, type Transport } from './delivery.js';
import type { CounterReading, EnergySource } from './energy/source.js';
import { checkHopKey, type HopKey } from './keys.js';
import { Spool } from './spool.js';
import type { TrafficSource } from './traffic/source.js';
import {
  AgentConfigError,
  bytesOut,
  emptyTraffic,
  SourceError,
  type Span,
  type Traffic,
} from './types.js';

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

/** A record the agent cut. */
export interface CutRecord {
  readonly span: Span;
  readonly fields: HopRecordFields;
  readonly bytes: Uint8Array;
  /** The record's digest (companion C1), hex. */
  readonly digest: string;
  /** Its spool file name. */
  readonly name: string;
  /** Why it is the unmetered marker, when its source has a class but could not state the span. */
  readonly unmetered?: string;
}

interface Reading {
  readonly boundary: bigint;
  readonly reading: CounterReading;
  readonly at: bigint;
  /** Undefined for a reading restored from the spool (another process's monotonic clock). */
  readonly mono: bigint | undefined;
}

const sleep = (ms: number) =>
  new Promise<void>((r) => {
    setTimeout(r, Math.max(0, ms)).unref?.();
  });

const systemClock = (): bigint => BigInt(Date.now()) * 1000n;
const performanceClock = (): bigint => BigInt(Math.round(performance.now() * 1000));

/**
 * An instant of a log line in the one form of human output (RFC 3339 to the millisecond), its
 * exact µs beside it under `<name>_us`.
 */
function instantField(name: string, us: bigint): Record<string, string> {
  return { [name]: formatInstant(us), [`${name}_us`]: String(us) };
}

function defaultLog(line: Record<string, unknown>): void {
  process.stderr.write(`${JSON.stringify(line)}\n`);
}

function minBig(...xs: bigint[]): bigint {
  let m = xs[0]!;
  for (const x of xs) if (x < m) m = x;
  return m;
}

/** The hop agent (see the module's comment). */
export class HopAgent {
  readonly P: bigint;
  readonly L: bigint;
  private readonly clock: () => bigint;
  private readonly mono: () => bigint;
  private readonly cutDelayUs: bigint;
  private readonly tol: bigint;
  private readonly logLine: (line: Record<string, unknown>) => void;
  private spool: Spool | undefined;
  private couriers: Courier[] = [];
  private baseline: Reading | undefined;
  /** The next span to cut starts here. */
  private lastEnd = 0n;
  private nextBoundary = 0n;
  private timer: NodeJS.Timeout | undefined;
  private chain: Promise<void> = Promise.resolve();
  private readonly logs = new Set<Promise<void>>();
  private started = false;
  private stopped = false;
  private sourceFailing = false;
  /** Counters of {@link metrics}. */
  readonly counts = {
    periods: new Map<number, number>(),
    joules: 0n,
    bytes: 0n,
    sessions: 0,
    sourceErrors: 0,
    lastEnd: 0n,
  };

  constructor(private readonly o: HopAgentOptions) {
    if (o.period <= 0n) throw new TypeError('period: expected a positive number of µs');
    if (o.spool === undefined && o.dryRun !== true) {
      throw new TypeError('spool: required unless dryRun');
    }
    this.P = o.period;
    this.L = o.lag ?? o.period / 4n;
    this.clock = o.clock ?? systemClock;
    this.mono = o.monotonic ?? performanceClock;
    this.cutDelayUs = o.cutDelay ?? minBig(this.L / 2n, this.P / 5n, 1_000_000n);
    this.tol = o.tolerance ?? minBig(this.P / 4n, 2_000_000n);
    this.logLine = o.log ?? defaultLog;
  }

  private log(line: Record<string, unknown>): void {
    this.logLine({ time: new Date().toISOString(), level: 'info', ...line });
  }

  private get roomId(): Uint8Array {
    return this.o.room instanceof Uint8Array ? this.o.room : this.o.room.roomId;
  }

  /** The class the agent states when it can measure. */
  get class(): number {
    return this.o.energy.class;
  }

  private floor(t: bigint): bigint {
    return (t / this.P) * this.P;
  }

  /**
   * Checks the key, opens the spool (resending what it holds), starts the traffic source, cuts
   * the periods since the spool's last span, and runs on the period. Throws an
   * {@link AgentConfigError} for a key the key log does not grant or an unreadable source.
   */
  async start(): Promise<void> {
    if (this.started) throw new TypeError('the agent is started');
    this.started = true;
    if (!(this.o.room instanceof Uint8Array)) {
      checkHopKey(this.o.room, this.o.key.publicKey, this.o.energy.class);
    }
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
      this.spool = new Spool(this.o.spool!, this.o.servers, this.o.keep);
      const transport = this.o.transport ?? httpTransport();
      this.couriers = this.o.servers.map(
        (server) =>
          new Courier({
            server,
            spool: this.spool!,
            transport,
            initialBackoffMs: this.o.backoff?.initialMs ?? 250,
            maxBackoffMs: this.o.backoff?.maxMs ?? 30_000,
            log: (l) => this.log(l),
          }),
      );
      for (const c of this.couriers) {
        if (c.pending > 0) {
          this.log({ msg: 'resending the spool', server: c.server, records: c.pending });
        }
        c.kick();
      }
    }
    const cursor = this.spool?.cursor();
    const now = this.clock();
    const cur = this.floor(now);
    let from: bigint;
    if (cursor !== undefined) {
      from = cursor.end;
      const limit = BigInt(this.o.backfill ?? 10_000);
      if (from < cur - limit * this.P) {
        this.log({
          level: 'warn',
          msg: 'periods not filled: more than the backfill limit since the last record',
          ...instantField('from', from),
          ...instantField('to', cur - limit * this.P),
        });
        from = cur - limit * this.P;
      }
      if (e.kind === 'counter' && cursor.reading !== undefined && cursor.end === cur) {
        // Restarted within the period after the last one cut: the reading at its start holds.
        this.baseline = { boundary: cur, reading: cursor.reading, at: cur, mono: undefined };
      }
      this.log({ msg: 'resuming', ...instantField('from', from) });
    } else {
      const history = BigInt(this.o.history ?? 0);
      from = history > 0n ? cur - history * this.P : e.kind === 'counter' ? cur + this.P : cur;
    }
    try {
      await this.o.traffic.start(from, this.P);
    } catch (err) {
      throw new AgentConfigError(
        `traffic source ${this.o.traffic.describe}: ${(err as Error).message}`,
      );
    }
    this.lastEnd = from;
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
    await this.cutUpTo(cur, undefined);
    this.nextBoundary = cur + this.P;
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped || this.o.manual === true) return;
    const wait = Number(this.nextBoundary - this.clock()) / 1000;
    // Woken at least every second, so that a step of the room clock is seen within one.
    this.timer = setTimeout(
      () => {
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
      Math.min(1000, Math.max(0, wait)),
    );
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
    const now = this.clock();
    if (now < this.nextBoundary) {
      this.schedule();
      return;
    }
    const mono = this.mono();
    const boundary = this.floor(now);
    this.nextBoundary = boundary + this.P;
    this.schedule();
    const onTime = now - boundary <= this.tol;
    let reading: Reading | undefined;
    const e = this.o.energy;
    if (e.kind === 'counter') {
      try {
        const r = await e.read();
        if (this.sourceFailing)
          this.log({ msg: 'energy source readable again', source: e.describe });
        this.sourceFailing = false;
        if (onTime) reading = { boundary, reading: r, at: now, mono };
      } catch (err) {
        this.counts.sourceErrors++;
        if (!this.sourceFailing) {
          this.log({
            level: 'error',
            msg: 'energy source unreadable; its periods are signed unmetered',
            source: e.describe,
            error: (err as Error).message,
          });
        }
        this.sourceFailing = true;
      }
    }
    if (onTime) {
      try {
        await this.o.traffic.mark?.(boundary);
      } catch {
        // a traffic source that cannot be read states no traffic for its periods
      }
    }
    const run = async () => {
      await sleep(Number(this.cutDelayUs) / 1000);
      if (this.stopped) return;
      await this.cutUpTo(boundary, reading);
    };
    this.chain = this.chain.then(run, run);
    await this.chain;
  }

  /** Cuts every period over by `boundary` not yet cut; `reading` is the counter's there. */
  private async cutUpTo(boundary: bigint, reading: Reading | undefined): Promise<void> {
    while (this.lastEnd + this.P <= boundary && !this.stopped) {
      const span = { start: this.lastEnd, end: this.lastEnd + this.P };
      let joules: bigint | undefined;
      let why: string | undefined;
      const e = this.o.energy;
      if (e.kind === 'counter') {
        const a = this.baseline;
        const b = reading;
        if (a === undefined || a.boundary !== span.start) why = 'no reading at the period start';
        else if (b === undefined || b.boundary !== span.end) why = 'no reading at the period end';
        else if (
          a.mono !== undefined &&
          b.mono !== undefined &&
          (b.at - a.at - (b.mono - a.mono) > this.tol || b.mono - a.mono - (b.at - a.at) > this.tol)
        ) {
          why = 'the room clock stepped within the period';
        } else {
          const d = e.between(a.reading, b.reading);
          if (typeof d === 'string') why = d;
          else joules = d;
        }
      }
      const keep =
        reading !== undefined && reading.boundary === span.end ? reading.reading : undefined;
      await this.cut(span, joules, why, keep);
    }
    if (reading !== undefined) this.baseline = reading;
  }

  private async takeTraffic(span: Span): Promise<Traffic> {
    try {
      return (await this.o.traffic.take(span)) ?? emptyTraffic();
    } catch (err) {
      if (err instanceof SourceError) {
        this.counts.sourceErrors++;
        this.log({ level: 'error', msg: 'traffic source unreadable', error: err.message });
        return emptyTraffic();
      }
      throw err;
    }
  }

  /** Signs the record of a span (energy as given, or the source's), spools and sends it. */
  private async cut(
    span: Span,
    counted: bigint | undefined,
    why: string | undefined,
    reading: CounterReading | undefined,
  ): Promise<CutRecord> {
    const traffic = await this.takeTraffic(span);
    const rec = this.sign(span, traffic, counted, why);
    if (this.spool !== undefined) {
      this.spool.add(
        { name: rec.name, start: span.start, end: span.end, bytes: rec.bytes },
        reading,
      );
      for (const c of this.couriers)
        c.push({ name: rec.name, start: span.start, end: span.end, bytes: rec.bytes });
    }
    this.lastEnd = span.end;
    this.counts.periods.set(rec.fields.class, (this.counts.periods.get(rec.fields.class) ?? 0) + 1);
    this.counts.joules += rec.fields.joules;
    this.counts.bytes += bytesOut(traffic);
    this.counts.sessions = traffic.sessions;
    this.counts.lastEnd = span.end;
    this.o.onRecord?.(rec);
    const p = this.logPeriod(rec, traffic).finally(() => this.logs.delete(p));
    this.logs.add(p);
    return rec;
  }

  private sign(
    span: Span,
    traffic: Traffic,
    counted: bigint | undefined,
    why: string | undefined,
  ): CutRecord {
    const e = this.o.energy;
    let cls = 0;
    let joules = 0n;
    let unmetered = why;
    if (e.kind === 'span') {
      cls = e.class;
      joules = e.energy(span, traffic);
      unmetered = undefined;
    } else if (e.kind === 'counter' && counted !== undefined) {
      cls = e.class;
      joules = counted;
    }
    const fields: HopRecordFields = {
      room: this.roomId,
      hop: this.o.key.publicKey,
      start: span.start,
      end: span.end,
      sessions: Math.min(traffic.sessions, 0xffff_ffff),
      class: cls,
      joules,
      subscriber_us: traffic.subscriber_us,
      tracks: traffic.tracks,
    };
    const bytes = signHopRecord(fields, this.o.key.secretKey, { backend: nodeBackend });
    // Companion C1: the digest is SHA-256 over the bytes before `sig`.
    const digest = createHash('sha256')
      .update(bytes.subarray(0, bytes.length - 64))
      .digest('hex');
    return {
      span,
      fields,
      bytes,
      digest,
      name: Spool.nameOf(span.start, digest),
      ...(cls === 0 && e.kind !== 'none' && unmetered !== undefined ? { unmetered } : {}),
    };
  }

  private async logPeriod(rec: CutRecord, traffic: Traffic): Promise<void> {
    if (this.couriers.length > 0) {
      await Promise.race([
        Promise.all(this.couriers.map((c) => c.settled(rec.name))),
        sleep(Math.min(Number(this.L) / 1000, 5000)),
      ]);
    }
    const by = (o: string) =>
      this.couriers.filter((c) => c.outcome(rec.name) === o).map((c) => c.server);
    this.log({
      msg: 'period',
      ...instantField('start', rec.span.start),
      ...instantField('end', rec.span.end),
      class: rec.fields.class,
      joules_uj: String(rec.fields.joules),
      bytes: String(bytesOut(traffic)),
      sessions: traffic.sessions,
      digest: rec.digest,
      ...(rec.unmetered === undefined ? {} : { unmetered: rec.unmetered }),
      sent: by('taken'),
      pending: by('pending'),
      refused: by('refused'),
      ...(this.o.dryRun === true ? { dryRun: true } : {}),
    });
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
    if (!(this.o.room instanceof Uint8Array)) {
      checkHopKey(this.o.room, this.o.key.publicKey, this.o.energy.class);
    }
    try {
      await this.o.traffic.start(span.start, span.end - span.start);
    } catch (err) {
      throw new AgentConfigError(
        `traffic source ${this.o.traffic.describe}: ${(err as Error).message}`,
      );
    }
    const waitUntil = async (t: bigint) => {
      for (let now = this.clock(); now < t; now = this.clock()) {
        await sleep(Math.min(1000, Number(t - now) / 1000));
      }
    };
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
      if (this.clock() > span.start + this.tol) {
        why = 'the span began before the agent read the counter';
      } else {
        await waitUntil(span.start);
        const a = await read();
        await waitUntil(span.end);
        const b = await read();
        const d = e.between(a!, b!);
        if (typeof d === 'string') why = d;
        else joules = d;
      }
    }
    await waitUntil(span.end + this.cutDelayUs);
    await this.o.traffic.mark?.(span.start);
    const traffic = await this.takeTraffic(span);
    await this.o.traffic.close();
    return this.sign(span, traffic, joules, why);
  }

  /** Whether it is cutting on time: the last period cut ended at most one period ago. */
  health(): { ok: boolean; lastEnd: bigint; pending: Record<string, number> } {
    const due = this.floor(this.clock()) - this.P;
    const pending: Record<string, number> = {};
    for (const c of this.couriers) pending[c.server] = c.pending;
    return {
      ok: this.started && !this.stopped && this.lastEnd >= due,
      lastEnd: this.lastEnd,
      pending,
    };
  }

  /** Resolves when every server has taken every record spooled so far (or `timeoutMs` passed). */
  async delivered(timeoutMs = 30_000): Promise<boolean> {
    const until = Date.now() + timeoutMs;
    while (this.couriers.some((c) => c.pending > 0)) {
      if (Date.now() > until) return false;
      await sleep(20);
    }
    return true;
  }

  /** The delivery workers, one per server. */
  get servers(): readonly Courier[] {
    return this.couriers;
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
    if (!(this.o.room instanceof Uint8Array)) {
      try {
        checkHopKey(this.o.room, this.o.key.publicKey, this.o.energy.class);
      } catch (err) {
        problems.push((err as Error).message);
      }
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
      await this.o.traffic.start(this.floor(this.clock()), this.P);
    } catch (err) {
      problems.push(`traffic source ${this.o.traffic.describe}: ${(err as Error).message}`);
    } finally {
      await this.o.traffic.close().catch(() => undefined);
    }
    return problems;
  }

  /** Stops: no more periods; the requests in flight end; the spool keeps what is not taken. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    await this.chain.catch(() => undefined);
    await Promise.all(this.couriers.map((c) => c.stop()));
    await Promise.all([...this.logs]);
    await this.o.traffic.close();
  }
}
