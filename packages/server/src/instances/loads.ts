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
 * Two exchanges: {@link PgLoadExchange} here, through the PostgreSQL store (instances on several
 * machines), and `IpcLoadExchange` (`ipc-loads.ts`) through the primary process of
 * `serve --workers N` (workers on one machine, any store); each keeps its lease in a `LeaseBook`
 * (`lease-book.ts`).
 */

import { createHash, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { describeError, type FaultSink } from '../health.js';
import type { PgStore } from '../store/postgres/index.js';
import { roomOfLayout, underLayout } from './layout.js';
import { grantAll, LeaseBook, publishedHeld } from './lease-book.js';

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

/** The pathways counted now. */
export const pathwaysOf = (o: LoadExchangeOptions): number =>
  typeof o.pathways === 'number' ? o.pathways : o.pathways();

/** A name for this instance: host, process and a random part (unique per start). */
export function instanceName(): string {
  return `${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
}

/** Options of the exchanges. */
export interface LoadExchangeOptions {
  /** This instance's own loads, read at each heartbeat. */
  readonly own: () => ArrayLike<number>;
  /**
   * The layout they are counted under (`layout.ts`), read at each beat: the workers' exchange
   * sends it with the counts (PostgreSQL's is given to `PgLoadExchange.start`).
   */
  readonly layout?: () => Uint8Array;
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
 * The exchange through PostgreSQL: each beat, in one transaction holding an advisory lock of the
 * deployment (its room), reads the other live rows of `instance_loads` (each peer's counts and
 * slots under its layout, read under this instance's by pathway ID: `layout.ts`), grants this
 * instance its slots within what they leave, and upserts its row, on the database's clock.
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
    if (this.stopped) return Promise.resolve();
    return this.book.take(() => this.beat(true, waiting));
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
        // One beat of the deployment's at a time: the slots granted add up.
        await q('SELECT pg_advisory_xact_lock($1)', [lockOf(layout)]);
        const { rows: all } = await q<{ policy: Buffer; counts: string[]; slots: string[] }>(
          `SELECT policy, counts, slots FROM instance_loads
           WHERE instance <> $1
             AND at > clock_timestamp() - make_interval(secs => $2::float8 / 1000)`,
          [this.instance, live],
        );
        // The peers of its room, their counts and slots under this one's pathways, by ID
        // (`layout.ts`: a peer under the policy before a rotation adds up all the same).
        const rows = all.flatMap((r) => {
          const counts = underLayout(layout, r.policy, r.counts);
          if (counts === undefined) return [];
          return [{ counts, slots: underLayout(layout, r.policy, r.slots) ?? [] }];
        });
        const slots =
          targets === undefined ? [] : grantAll(targets, own, this.book.capacities(pathways), rows);
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
    await this.book.pending;
    await this.store
      .query('DELETE FROM instance_loads WHERE instance = $1', [this.instance])
      .catch(() => {});
  }
}

/**
 * The advisory lock of a deployment's beats, apart from the schema's: from its room (the
 * layout's, `layout.ts`), whatever the policy in force; from the layout's first bytes for one of
 * another form.
 */
function lockOf(layout: Uint8Array): string {
  const room = roomOfLayout(layout);
  const key = room === undefined ? layout : createHash('sha256').update(room).digest();
  const v = new DataView(key.buffer, key.byteOffset, key.byteLength);
  return (v.getBigInt64(0, false) ^ 0x7761_6932_6c6f_6164n).toString(); // "wai2load"
}
