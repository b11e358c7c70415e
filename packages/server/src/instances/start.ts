/**
 * Links an engine to the other instances of its deployment, by its store:
 *
 * - PostgreSQL: the loads heartbeat through `instance_loads` ({@link PgLoadExchange}) and the
 *   feed of records and key log heads ({@link StoreFeed}); every instance, and every worker
 *   process of one, is an instance of its own.
 * - SQLite in a worker process of `serve --workers N`: the loads through the primary
 *   ({@link IpcLoadExchange}), the window's records read again from the shared file at each
 *   window move and new ones announced through the primary ({@link WindowFeed}).
 * - SQLite alone: nothing to link.
 */
import { windowAt } from '@wai-steering/evidence';
import { bytesEqual, NO_CAPACITY_LIMIT, type Policy } from '@wai-steering/wire';
import type { SteeringEngine } from '../engine/engine.js';
import { PgStore } from '../store/postgres/index.js';
import type { SteeringStore } from '../store/store.js';
import { StoreFeed, WindowFeed } from './feed.js';
import { type IpcChannel, IpcLoadExchange } from './ipc-loads.js';
import { layoutOf } from './layout.js';
import type { InstanceLink } from './link.js';
import { type PeerLoads, PgLoadExchange } from './loads.js';

/** An announcement between workers, relayed by the primary: a record one of them stored. */
export interface RecordMessage {
  readonly wai: 'record';
  readonly digest: string;
}

export function isRecordMessage(m: unknown): m is RecordMessage {
  return (
    typeof m === 'object' &&
    m !== null &&
    (m as { wai?: unknown }).wai === 'record' &&
    typeof (m as { digest?: unknown }).digest === 'string' &&
    /^[0-9a-f]{64}$/.test((m as { digest: string }).digest)
  );
}

/** An announcement between workers: a capacity report kept, or a policy put in force. */
export interface LiveMessage {
  readonly wai: 'live';
  readonly what: 'capacity' | 'policy';
}

export function isLiveMessage(m: unknown): m is LiveMessage {
  return (
    typeof m === 'object' &&
    m !== null &&
    (m as { wai?: unknown }).wai === 'live' &&
    ((m as { what?: unknown }).what === 'capacity' || (m as { what?: unknown }).what === 'policy')
  );
}

/** What an announcement of live policy calls for: the store read again, the policy signed. */
function onLive(engine: SteeringEngine, what: 'capacity' | 'policy'): void {
  // Neither rejects: a store that does not answer is told through health.
  void (what === 'policy' ? engine.adoptPolicy() : engine.syncLive());
}

/**
 * The layout a policy's loads are counted under (`layout.ts`): the room and the pathway IDs in
 * order. The instances add their loads by pathway ID, so they add up across any rotation.
 */
const layouts = new WeakMap<Policy, Uint8Array>();
function layoutFor(engine: SteeringEngine): Uint8Array {
  const policy = engine.policy;
  let key = layouts.get(policy);
  if (key === undefined) {
    key = layoutOf(
      engine.room.roomId,
      policy.pathways.map((p) => p.id),
    );
    layouts.set(policy, key);
  }
  return key;
}

/** The peers' loads as gauges (`docs/server.md`, *Metrics*). */
function registerPeerGauges(engine: SteeringEngine, peers: PeerLoads): void {
  engine.metrics.gauge(
    'wai_steering_peer_load',
    "Each pathway's load at the live peers (other instances or workers), added to this one's.",
    () => engine.policy.pathways.map((p, i) => [{ pathway: p.id }, peers.peers[i] ?? 0] as const),
  );
  engine.metrics.gauge('wai_steering_peers', 'Live peers as of the latest heartbeat.', () => [
    [{}, peers.livePeers],
  ]);
  engine.metrics.gauge(
    'wai_steering_capacity_slots',
    "The slots of each capacity-limited pathway's capacity this instance holds (its lease).",
    () => {
      const lease = peers.lease();
      if (lease === undefined) return [];
      return engine.policy.pathways.flatMap((p, i) =>
        p.capacity === NO_CAPACITY_LIMIT ? [] : [[{ pathway: p.id }, lease[i] ?? 0] as const],
      );
    },
  );
}

export interface LinkOptions {
  readonly heartbeatMs: number;
  readonly dropAfterMs: number;
  /** This instance's name: its row of the loads heartbeat (`identity.ts`); a random one without. */
  readonly name?: string;
  /** The channel to the primary, in a worker process of `serve --workers N`. */
  readonly worker?: IpcChannel;
  /** A key log head another instance kept (PostgreSQL). */
  readonly onKeyLog?: (bytes: Uint8Array) => void;
}

/** A link made, and how to undo it. */
export interface Linked {
  readonly link: InstanceLink | undefined;
  readonly peers: PeerLoads | undefined;
  /**
   * Resolves once the others' loads are counted (PostgreSQL: the first heartbeat read them; a
   * worker: the primary counts every other worker, none starting), so that the first decision
   * states them.
   */
  readonly settled: Promise<void>;
  stop(): Promise<void>;
}

export async function linkInstances(
  engine: SteeringEngine,
  store: SteeringStore,
  o: LinkOptions,
): Promise<Linked> {
  const pathways = () => engine.policy.pathways.length;
  // The loads this instance's decisions state now (sessions whose end has come are out).
  const own = () => engine.loadsNow();
  const liveIntervals = Math.max(1, Math.ceil(o.dropAfterMs / o.heartbeatMs));
  // Leases of each pathway's capacity (`leases.ts`), under the policy in force.
  const capacities = () => engine.policy.pathways.map((p) => p.capacity);
  const placed = () => engine.placements;
  const exchange = {
    own,
    layout: () => layoutFor(engine),
    pathways,
    intervalMs: o.heartbeatMs,
    liveIntervals,
    capacities,
    placed,
    faults: engine.health,
  };
  if (store instanceof PgStore) {
    store.reportFaultsTo(engine.health);
    const feed = await StoreFeed.start(store, {
      windowStart: () => windowAt(engine.policy, engine.now()).a,
      onRecord: (r) => engine.learnRecord(r),
      ...(o.onKeyLog === undefined ? {} : { onKeyLog: o.onKeyLog }),
      onLive: (what, room) => {
        if (bytesEqual(room, engine.room.roomId)) onLive(engine, what);
      },
    });
    const peers = await PgLoadExchange.start(store, () => layoutFor(engine), {
      ...exchange,
      ...(o.name === undefined ? {} : { instance: o.name }),
    });
    const link: InstanceLink = { peers, beforeWindow: (a) => feed.beforeWindow(a) };
    engine.linkInstances(link);
    registerPeerGauges(engine, peers);
    return {
      link,
      peers,
      settled: Promise.resolve(),
      async stop() {
        engine.linkInstances(undefined);
        feed.stop();
        await peers.stop();
      },
    };
  }
  const channel = o.worker;
  if (channel === undefined) {
    return { link: undefined, peers: undefined, settled: Promise.resolve(), stop: async () => {} };
  }
  const peers = new IpcLoadExchange(channel, exchange);
  registerPeerGauges(engine, peers);
  const feed = new WindowFeed(store, (r) => engine.learnRecord(r));
  const onMessage = (m: unknown): void => {
    if (isRecordMessage(m))
      feed.heard(new Uint8Array(Buffer.from(m.digest, 'hex'))).catch(() => {});
    else if (isLiveMessage(m)) onLive(engine, m.what);
  };
  channel.on('message', onMessage);
  const link: InstanceLink = {
    peers,
    beforeWindow: (a) => feed.beforeWindow(a),
    stored: (r) => {
      channel.send?.({ wai: 'record', digest: Buffer.from(r.digest).toString('hex') });
    },
    announceLive: (what) => {
      channel.send?.({ wai: 'live', what } satisfies LiveMessage);
    },
  };
  engine.linkInstances(link);
  return {
    link,
    peers,
    settled: peers.settled,
    async stop() {
      engine.linkInstances(undefined);
      channel.off('message', onMessage);
      await peers.stop();
    },
  };
}
