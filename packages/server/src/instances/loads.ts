/**
 * Loads across instances (§6): each instance counts its own sessions exactly (`SessionTable`)
 * and publishes its per-pathway counts with a heartbeat; the loads a decision states are its own
 * counts plus every live peer's latest. A peer whose heartbeat is older than `liveIntervals`
 * intervals is dropped (it left, or died: its sessions come back through the balancer and are
 * counted where they land).
 *
 * Staleness: a peer's count as an instance sees it was published at the peer's latest beat, and
 * read at the instance's own latest beat, so it is at most `2 × interval + δ` old (δ: a beat's
 * round trip). Over that time each peer may place sessions the others do not yet count: with N
 * instances each placing at most r new sessions a second on a pathway, a capacity limit is
 * overshot by at most `N × r × (2 × interval + δ)` sessions (see `docs/server.md`).
 *
 * Two exchanges: {@link PgLoadExchange} through the PostgreSQL store (instances on several
 * machines), {@link IpcLoadExchange} through the primary process of `serve --workers N` (workers
 * on one machine, any store).
 */

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { describeError, type FaultSink } from '../health.js';
import type { PgStore } from '../store/postgres.js';

/** The peers' loads an instance adds to its own. */
export interface PeerLoads {
  /** Each pathway's load at the live peers, summed (as of their latest heartbeat). */
  readonly peers: Uint32Array;
  /** The live peers as of the latest heartbeat. */
  readonly livePeers: number;
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
  /** Where a heartbeat's failure is told, once per state change (`health.ts`); nowhere by default. */
  readonly faults?: FaultSink;
}

/**
 * The exchange through PostgreSQL: each beat upserts this instance's row of `instance_loads`
 * and reads the other live rows of the same pathways (by `layout`: counts by index add up only
 * between policies of the same pathway IDs in the same order, which live rotations keep), in
 * one statement, on the database's clock.
 * A beat that fails keeps the peers' latest counts (counting a peer too long errs on the side
 * of a capacity limit).
 */
export class PgLoadExchange implements PeerLoads {
  peers: Uint32Array;
  livePeers = 0;
  /** Beats written and read. */
  beats = 0;
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;
  private stopped = false;

  private constructor(
    private readonly store: PgStore,
    readonly instance: string,
    private readonly layout: () => Uint8Array,
    private readonly o: LoadExchangeOptions,
  ) {
    this.peers = new Uint32Array(pathwaysOf(o));
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

  /** One heartbeat: publish the own counts, read the live peers'. */
  async beat(): Promise<void> {
    if (this.stopped) return;
    const interval = this.o.intervalMs ?? 250;
    const live = interval * (this.o.liveIntervals ?? 4);
    const own = Array.from(this.o.own(), (n) => String(n));
    try {
      const { rows } = await this.store.query<{ counts: string[] }>(
        `WITH up AS (
           INSERT INTO instance_loads (instance, policy, at, counts)
           VALUES ($1, $2, clock_timestamp(), $3::int8[])
           ON CONFLICT (instance) DO UPDATE
             SET policy = EXCLUDED.policy, at = EXCLUDED.at, counts = EXCLUDED.counts
         )
         SELECT counts FROM instance_loads
         WHERE instance <> $1 AND policy = $2
           AND at > clock_timestamp() - make_interval(secs => $4::float8 / 1000)`,
        [this.instance, Buffer.from(this.layout()), own, live],
      );
      const pathways = pathwaysOf(this.o);
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
    await this.store
      .query('DELETE FROM instance_loads WHERE instance = $1', [this.instance])
      .catch(() => {});
  }
}

/** The messages of the workers' exchange (`serve --workers N`). */
export interface LoadsMessage {
  readonly wai: 'loads';
  readonly counts: readonly number[];
  /** From the primary: how many live workers the counts add up. */
  readonly live?: number;
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
 * The exchange of a worker process: each beat sends its own counts to the primary, which
 * answers every worker with the sum of the other live workers' latest (`LoadsHub`).
 */
export class IpcLoadExchange implements PeerLoads {
  peers: Uint32Array;
  livePeers = 0;
  private readonly timer: NodeJS.Timeout;
  private readonly onMessage: (m: unknown) => void;

  constructor(
    private readonly channel: IpcChannel,
    o: LoadExchangeOptions,
  ) {
    this.peers = new Uint32Array(pathwaysOf(o));
    this.onMessage = (m) => {
      const pathways = pathwaysOf(o);
      if (!isLoadsMessage(m) || m.counts.length !== pathways) return;
      if (this.peers.length !== pathways) this.peers = new Uint32Array(pathways);
      for (let i = 0; i < pathways; i++) this.peers[i] = m.counts[i]!;
      this.livePeers = m.live ?? 0;
    };
    channel.on('message', this.onMessage);
    const beat = (): void => {
      channel.send?.({ wai: 'loads', counts: Array.from(o.own()) } satisfies LoadsMessage);
    };
    beat();
    this.timer = setInterval(beat, o.intervalMs ?? 250);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.channel.off('message', this.onMessage);
  }
}

/**
 * The primary's side of the workers' exchange: keeps each worker's latest counts and when they
 * came, and answers a worker's beat with the sum of the others' that are live.
 */
export class LoadsHub {
  private readonly latest = new Map<number, { counts: readonly number[]; at: number }>();

  constructor(
    private readonly intervalMs = 250,
    private readonly liveIntervals = 4,
  ) {}

  /** A worker's beat: the others' live loads summed, to send back to it. */
  beat(worker: number, counts: readonly number[], nowMs: number): LoadsMessage {
    this.latest.set(worker, { counts, at: nowMs });
    const sum = new Array<number>(counts.length).fill(0);
    const live = this.intervalMs * this.liveIntervals;
    let others = 0;
    for (const [id, l] of this.latest) {
      if (id === worker) continue;
      if (nowMs - l.at > live) {
        this.latest.delete(id);
        continue;
      }
      others++;
      for (let i = 0; i < sum.length && i < l.counts.length; i++) sum[i]! += l.counts[i]!;
    }
    return { wai: 'loads', counts: sum, live: others };
  }

  /** A worker that exited: its loads stop counting at once. */
  drop(worker: number): void {
    this.latest.delete(worker);
  }
}
