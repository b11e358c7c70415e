/**
 * Loads across instances (§6): each instance counts its own sessions exactly (`SessionTable`)
 * and publishes its per-pathway counts with a heartbeat; the loads a decision states are its own
 * counts plus every live peer's latest. A peer whose heartbeat is older than `liveIntervals`
 * intervals is dropped (it left, or died: its sessions come back through the balancer and are
 * counted where they land).
 *
 * Staleness: a peer's count as an instance sees it was published at the peer's latest beat, and
 * read at the instance's own latest beat, so it is at most `2 × interval + δ` old (δ: a beat's
 * round trip).
 *
 * Capacity (`leases.ts`): with `capacities` given, each beat also takes or returns slots of each
 * capacity-limited pathway, granted under a lock (an advisory lock of the deployment in
 * PostgreSQL, the primary's one thread for workers) so that the live instances' slots add up to
 * at most the capacity, and an instance places sessions in a pathway only within its slots. It
 * shrinks its lease before the beat that returns slots, and uses slots it takes only once they
 * are granted; its lease is void once its latest beat is older than the time after which the
 * others drop it.
 *
 * Two exchanges: {@link PgLoadExchange} through the PostgreSQL store (instances on several
 * machines), {@link IpcLoadExchange} through the primary process of `serve --workers N` (workers
 * on one machine, any store).
 */

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { describeError, type FaultSink } from '../health.js';
import type { PgStore } from '../store/postgres.js';
import { grant, leaseTarget } from './leases.js';

/** The peers' loads an instance adds to its own, and its lease of the pathways' capacity. */
export interface PeerLoads {
  /** Each pathway's load at the live peers, summed (as of their latest heartbeat). */
  readonly peers: Uint32Array;
  /** The live peers as of the latest heartbeat. */
  readonly livePeers: number;
  /**
   * The slots of each pathway's capacity this instance may place sessions in (`leases.ts`): all
   * 0 once its lease is void (its heartbeat too old); `undefined` when the exchange keeps no
   * leases.
   */
  lease(): Uint32Array | undefined;
  /**
   * Asks for more slots now (the instance ran short, `waiting` decisions wait for them); resolves
   * once answered, never rejects.
   */
  take(waiting?: number): Promise<void>;
  stop(): Promise<void>;
}

/** The loads a decision states: the instance's own plus its peers'. */
export function addLoads(own: ArrayLike<number>, peers: PeerLoads | undefined): number[] {
  const out = Array.from(own);
  if (peers === undefined) return out;
  const p = peers.peers;
  for (let i = 0; i < out.length && i < p.length; i++) out[i]! += p[i]!;
  return out;
}

const pathwaysOf = (o: LoadExchangeOptions): number =>
  typeof o.pathways === 'number' ? o.pathways : o.pathways();

/** A name for this instance: host, process and a random part (unique per start). */
export function instanceName(): string {
  return `${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
}

/** Options of the exchanges. */
export interface LoadExchangeOptions {
  /** This instance's own loads, read at each heartbeat. */
  readonly own: () => ArrayLike<number>;
  /** The pathways counted: a number, or read at each beat (a rotation may change them). */
  readonly pathways: number | (() => number);
  /** The heartbeat, ms; default 250. */
  readonly intervalMs?: number;
  /** A peer silent for this many intervals is dropped; default 4. */
  readonly liveIntervals?: number;
  /**
   * Each pathway's capacity under the policy in force (§3.3; `NO_CAPACITY_LIMIT` for none): with
   * it, the exchange keeps leases of the capacity (`leases.ts`); without, none.
   */
  readonly capacities?: () => ArrayLike<number>;
  /** The sessions this instance newly placed in each pathway so far (a running count). */
  readonly placed?: () => ArrayLike<number>;
  /** Where a heartbeat's failure is told, once per state change (`health.ts`); nowhere by default. */
  readonly faults?: FaultSink;
}

/**
 * This instance's lease and what its beats ask for (`leaseTarget`). Slots granted are used once
 * the grant is written; slots returned are published as held until the beat after (`held`), by
 * when this instance no longer uses them.
 */
class LeaseBook {
  slots = new Uint32Array(0);
  /** `performance.now()` until which the lease holds (the others drop it after). */
  validUntil = 0;
  /** A take found no slot to grant: none is asked again before the next beat. */
  starved = false;
  private lastPlaced: ArrayLike<number> = [];
  private readonly zeros = new Uint32Array(256);

  constructor(private readonly o: LoadExchangeOptions) {}

  get enabled(): boolean {
    return this.o.capacities !== undefined;
  }

  lease(pathways: number): Uint32Array | undefined {
    if (!this.enabled) return undefined;
    if (performance.now() > this.validUntil || this.slots.length !== pathways) {
      return this.zeros.subarray(0, pathways);
    }
    return this.slots;
  }

  /** The targets of a beat; shrinks the lease to them now. */
  targets(
    own: ArrayLike<number>,
    pathways: number,
    short: boolean,
    waiting: number,
  ): number[] | undefined {
    if (!this.enabled) return undefined;
    if (this.slots.length !== pathways) this.slots = new Uint32Array(pathways);
    const placedNow = this.o.placed?.() ?? [];
    const targets: number[] = new Array(pathways);
    for (let i = 0; i < pathways; i++) {
      const placed =
        placedNow.length === pathways && this.lastPlaced.length === pathways
          ? Math.max(0, placedNow[i]! - this.lastPlaced[i]!)
          : 0;
      targets[i] = leaseTarget(this.slots[i]!, own[i] ?? 0, placed, short, waiting);
    }
    this.lastPlaced = Array.from(placedNow);
    return targets;
  }

  /**
   * The slots granted by a beat whose row was written at `started` or after (ms,
   * `performance.now()`); a `short` beat that got no more leaves the lease starved until the
   * next regular beat.
   */
  granted(
    slots: readonly number[],
    started: number,
    liveMs: number,
    intervalMs: number,
    short: boolean,
  ): void {
    let more = false;
    for (let i = 0; i < slots.length; i++) if (slots[i]! > (this.slots[i] ?? 0)) more = true;
    this.starved = short && !more;
    this.slots = Uint32Array.from(slots);
    // The others drop this instance `liveMs` after its row was written (not before `started`):
    // its lease ends a little before, a quarter of that or an interval, whichever is less.
    this.validUntil = started + liveMs - Math.min(intervalMs, liveMs / 4);
  }

  capacities(pathways: number): number[] {
    const c = this.o.capacities?.() ?? [];
    return Array.from({ length: pathways }, (_, i) => c[i] ?? 0);
  }

  /** The slots this instance holds now (it may place in them until the next grant is applied). */
  held(pathways: number): number[] {
    return Array.from({ length: pathways }, (_, i) => this.slots[i] ?? 0);
  }
}

/** What a row publishes as held: the grant, or what the instance held before, whichever is more. */
function publishedHeld(granted: readonly number[], before: readonly number[]): number[] {
  return granted.map((g, i) => Math.max(g, before[i] ?? 0));
}

/** The slots to grant to one instance, from its targets, its counts and the live others' rows. */
function grantAll(
  targets: readonly number[],
  own: ArrayLike<number | string>,
  capacities: readonly number[],
  others: readonly {
    readonly counts: ArrayLike<number | string>;
    readonly slots: ArrayLike<number | string>;
  }[],
): number[] {
  return targets.map((target, i) => {
    let held = 0;
    for (const o of others) held += Math.max(Number(o.counts[i] ?? 0), Number(o.slots[i] ?? 0));
    return grant(target, capacities[i]!, held, Number(own[i] ?? 0), others.length + 1);
  });
}

/**
 * The exchange through PostgreSQL: each beat, in one transaction holding an advisory lock of the
 * deployment's pathways (by `layout`: counts by index add up only between policies of the same
 * pathway IDs in the same order, which live rotations keep), reads the other live rows of
 * `instance_loads`, grants this instance its slots within what they leave, and upserts its row,
 * on the database's clock.
 * A beat that fails keeps the peers' latest counts (counting a peer too long errs on the side
 * of a capacity limit), and the lease lapses when no beat succeeds for long enough.
 */
export class PgLoadExchange implements PeerLoads {
  peers: Uint32Array;
  livePeers = 0;
  /** Beats written and read. */
  beats = 0;
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;
  private taking: Promise<void> | undefined;
  private stopped = false;
  private readonly book: LeaseBook;
  /** The beats, one after the other. */
  private queue: Promise<void> = Promise.resolve();

  private constructor(
    private readonly store: PgStore,
    readonly instance: string,
    private readonly layout: () => Uint8Array,
    private readonly o: LoadExchangeOptions,
  ) {
    this.peers = new Uint32Array(pathwaysOf(o));
    this.book = new LeaseBook(o);
  }

  /** Starts the heartbeat (its first beat done when this resolves). */
  static async start(
    store: PgStore,
    layout: Uint8Array | (() => Uint8Array),
    options: LoadExchangeOptions & { readonly instance?: string },
  ): Promise<PgLoadExchange> {
    const key = layout instanceof Uint8Array ? () => layout : layout;
    const x = new PgLoadExchange(store, options.instance ?? instanceName(), key, options);
    // Rows of instances gone for an hour are removed (a dead instance's row is otherwise kept).
    await store.query(
      "DELETE FROM instance_loads WHERE at < clock_timestamp() - interval '1 hour'",
      [],
    );
    await x.beat();
    const interval = options.intervalMs ?? 250;
    x.timer = setInterval(() => {
      if (x.inFlight === undefined) x.inFlight = x.beat().finally(() => (x.inFlight = undefined));
    }, interval);
    x.timer.unref();
    return x;
  }

  lease(): Uint32Array | undefined {
    return this.book.lease(this.peers.length);
  }

  take(waiting = 1): Promise<void> {
    if (this.stopped || !this.book.enabled || this.book.starved) return Promise.resolve();
    this.taking ??= this.beat(true, waiting).finally(() => {
      this.taking = undefined;
    });
    return this.taking;
  }

  /**
   * One heartbeat: publish the own counts, take or return slots, read the live peers'. Beats run
   * one at a time: the lease applied is always the one the store holds for this instance.
   */
  beat(short = false, waiting = 0): Promise<void> {
    const run = this.queue.then(() => this.beatNow(short, waiting));
    this.queue = run.catch(() => {});
    return run;
  }

  private async beatNow(short: boolean, waiting: number): Promise<void> {
    if (this.stopped) return;
    const interval = this.o.intervalMs ?? 250;
    const live = interval * (this.o.liveIntervals ?? 4);
    const started = performance.now();
    const pathways = pathwaysOf(this.o);
    const ownNow = this.o.own();
    const own = Array.from(ownNow, (n) => String(n));
    const targets = this.book.targets(ownNow, pathways, short, waiting);
    const held = this.book.held(pathways);
    const layout = Buffer.from(this.layout());
    let written = started;
    try {
      const { rows, slots } = await this.store.transaction(async (q) => {
        // One beat of the deployment's pathways at a time: the slots granted add up.
        await q('SELECT pg_advisory_xact_lock($1)', [lockOf(layout)]);
        const { rows } = await q<{ counts: string[]; slots: string[] }>(
          `SELECT counts, slots FROM instance_loads
           WHERE instance <> $1 AND policy = $2
             AND at > clock_timestamp() - make_interval(secs => $3::float8 / 1000)`,
          [this.instance, layout, live],
        );
        const slots =
          targets === undefined
            ? []
            : grantAll(
                targets,
                own,
                this.book.capacities(pathways),
                rows.filter((r) => r.counts.length === pathways),
              );
        written = performance.now();
        await q(
          `INSERT INTO instance_loads (instance, policy, at, counts, slots)
           VALUES ($1, $2, clock_timestamp(), $3::int8[], $4::int8[])
           ON CONFLICT (instance) DO UPDATE
             SET policy = EXCLUDED.policy, at = EXCLUDED.at, counts = EXCLUDED.counts,
                 slots = EXCLUDED.slots`,
          [this.instance, layout, own, publishedHeld(slots, held).map(String)],
        );
        return { rows, slots };
      });
      if (targets !== undefined) this.book.granted(slots, written, live, interval, short);
      const sum = new Uint32Array(pathways);
      let peers = 0;
      for (const r of rows) {
        if (r.counts.length !== pathways) continue;
        peers++;
        for (let i = 0; i < sum.length; i++) sum[i]! += Number(r.counts[i]);
      }
      if (this.peers.length === pathways) this.peers.set(sum);
      else this.peers = sum;
      this.livePeers = peers;
      this.beats++;
      this.o.faults?.clear('store_queries');
    } catch (e) {
      if (!this.stopped) {
        this.o.faults?.fail('store_queries', `the loads heartbeat fails: ${describeError(e)}`);
      }
    }
  }

  /** Stops the heartbeat and removes this instance's row (its peers stop counting it now). */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.timer);
    await this.inFlight;
    await this.taking;
    await this.store
      .query('DELETE FROM instance_loads WHERE instance = $1', [this.instance])
      .catch(() => {});
  }
}

/** The advisory lock of a deployment's beats: from its pathways' layout, apart from the schema's. */
function lockOf(layout: Uint8Array): string {
  const v = new DataView(layout.buffer, layout.byteOffset, layout.byteLength);
  return (v.getBigInt64(0, false) ^ 0x7761_6932_6c6f_6164n).toString(); // "wai2load"
}

/** The messages of the workers' exchange (`serve --workers N`). */
export interface LoadsMessage {
  readonly wai: 'loads';
  readonly counts: readonly number[];
  /** From the primary: how many live workers the counts add up. */
  readonly live?: number;
  /**
   * From a worker keeping leases: the slots it asks for, the capacities it counts, and the slots
   * it holds now (published as held until its next beat).
   */
  readonly targets?: readonly number[];
  readonly capacities?: readonly number[];
  readonly held?: readonly number[];
  /** From the primary: the slots granted to the worker. */
  readonly slots?: readonly number[];
  /** A worker's beat number, given back with the answer. */
  readonly seq?: number;
}

/** Whether an IPC message is one of the loads exchange. */
export function isLoadsMessage(m: unknown): m is LoadsMessage {
  return (
    typeof m === 'object' &&
    m !== null &&
    (m as { wai?: unknown }).wai === 'loads' &&
    Array.isArray((m as { counts?: unknown }).counts)
  );
}

/** The channel of a worker to its primary (`process` in a worker of `node:cluster`). */
export interface IpcChannel {
  send?(message: unknown): unknown;
  on(event: 'message', listener: (m: unknown) => void): unknown;
  off(event: 'message', listener: (m: unknown) => void): unknown;
}

/**
 * The exchange of a worker process: each beat sends its own counts (and, keeping leases, the
 * slots it asks for) to the primary, which answers every worker with the sum of the other live
 * workers' latest and the slots it granted (`LoadsHub`).
 */
export class IpcLoadExchange implements PeerLoads {
  peers: Uint32Array;
  livePeers = 0;
  private readonly timer: NodeJS.Timeout;
  private readonly onMessage: (m: unknown) => void;
  private readonly book: LeaseBook;
  private seq = 0;
  /** Beats sent whose answers are awaited: their start and who waits. */
  private readonly waiting = new Map<
    number,
    { started: number; short: boolean; done: () => void }
  >();
  private taking: Promise<void> | undefined;
  private stopped = false;
  /** The beats, one after the other, and how many wait or run. */
  private queue: Promise<void> = Promise.resolve();
  private pending = 0;

  constructor(
    private readonly channel: IpcChannel,
    private readonly o: LoadExchangeOptions,
  ) {
    this.peers = new Uint32Array(pathwaysOf(o));
    this.book = new LeaseBook(o);
    this.onMessage = (m) => {
      const pathways = pathwaysOf(o);
      if (!isLoadsMessage(m) || m.counts.length !== pathways) return;
      if (this.peers.length !== pathways) this.peers = new Uint32Array(pathways);
      for (let i = 0; i < pathways; i++) this.peers[i] = m.counts[i]!;
      this.livePeers = m.live ?? 0;
      const w = m.seq === this.seq ? this.waiting.get(m.seq) : undefined;
      if (w === undefined) return;
      this.waiting.delete(m.seq!);
      const interval = o.intervalMs ?? 250;
      if (m.slots !== undefined && m.slots.length === pathways) {
        this.book.granted(m.slots, w.started, interval * (o.liveIntervals ?? 4), interval, w.short);
      }
      w.done();
    };
    channel.on('message', this.onMessage);
    void this.beat(false);
    this.timer = setInterval(() => {
      if (this.pending === 0) void this.beat(false);
    }, o.intervalMs ?? 250);
    this.timer.unref();
  }

  /**
   * One beat: resolves when the primary answered it (or after an interval without answer). Beats
   * go one at a time, and only the answer to the latest is applied: the lease applied is always
   * the one the primary holds for this worker (a late answer is ignored; the primary then counts
   * the more of the two, on the side of the limit).
   */
  private beat(short: boolean, waiting = 0): Promise<void> {
    this.pending++;
    const run = this.queue
      .then(() => this.beatNow(short, waiting))
      .finally(() => {
        this.pending--;
      });
    this.queue = run;
    return run;
  }

  private beatNow(short: boolean, waiting: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    const pathways = pathwaysOf(this.o);
    const own = Array.from(this.o.own());
    const targets = this.book.targets(own, pathways, short, waiting);
    const seq = ++this.seq;
    const started = performance.now();
    const message: LoadsMessage = {
      wai: 'loads',
      counts: own,
      seq,
      ...(targets === undefined
        ? {}
        : {
            targets,
            capacities: this.book.capacities(pathways),
            held: this.book.held(pathways),
          }),
    };
    return new Promise<void>((resolve) => {
      const timeout = setTimeout(() => {
        this.waiting.delete(seq);
        resolve();
      }, this.o.intervalMs ?? 250);
      timeout.unref();
      this.waiting.set(seq, {
        started,
        short,
        done: () => {
          clearTimeout(timeout);
          resolve();
        },
      });
      this.channel.send?.(message);
    });
  }

  lease(): Uint32Array | undefined {
    return this.book.lease(this.peers.length);
  }

  take(waiting = 1): Promise<void> {
    if (this.stopped || !this.book.enabled || this.book.starved) return Promise.resolve();
    this.taking ??= this.beat(true, waiting).finally(() => {
      this.taking = undefined;
    });
    return this.taking;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.channel.off('message', this.onMessage);
    for (const w of this.waiting.values()) w.done();
    this.waiting.clear();
  }
}

/**
 * The primary's side of the workers' exchange: keeps each worker's latest counts and slots and
 * when they came, answers a worker's beat with the sum of the others' that are live, and grants
 * its slots within what the live others hold (the primary's one thread is the lock).
 */
export class LoadsHub {
  private readonly latest = new Map<
    number,
    { counts: readonly number[]; slots: readonly number[]; at: number }
  >();

  constructor(
    private readonly intervalMs = 250,
    private readonly liveIntervals = 4,
  ) {}

  /** A worker's beat: the others' live loads summed, and its slots, to send back to it. */
  beat(worker: number, message: LoadsMessage | readonly number[], nowMs: number): LoadsMessage {
    const m: LoadsMessage = Array.isArray(message)
      ? { wai: 'loads', counts: message as readonly number[] }
      : (message as LoadsMessage);
    const counts = m.counts;
    const sum = new Array<number>(counts.length).fill(0);
    const live = this.intervalMs * this.liveIntervals;
    const others: { counts: readonly number[]; slots: readonly number[] }[] = [];
    for (const [id, l] of this.latest) {
      if (id === worker) continue;
      if (nowMs - l.at > live) {
        this.latest.delete(id);
        continue;
      }
      if (l.counts.length !== counts.length) continue;
      others.push(l);
      for (let i = 0; i < sum.length; i++) sum[i]! += l.counts[i]!;
    }
    const slots =
      m.targets !== undefined && m.capacities !== undefined
        ? grantAll(m.targets, counts, m.capacities, others)
        : [];
    this.latest.set(worker, { counts, slots: publishedHeld(slots, m.held ?? []), at: nowMs });
    return {
      wai: 'loads',
      counts: sum,
      live: others.length,
      ...(m.targets === undefined ? {} : { slots }),
      ...(m.seq === undefined ? {} : { seq: m.seq }),
    };
  }

  /** A worker that exited: its loads and slots stop counting at once. */
  drop(worker: number): void {
    this.latest.delete(worker);
  }
}
