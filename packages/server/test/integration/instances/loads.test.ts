import { NO_CAPACITY_LIMIT } from '@wai-steering/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LoadsHub } from '../../../src/instances/ipc-loads.js';
import { MIN_HEADROOM } from '../../../src/instances/leases.js';
import { addLoads, PgLoadExchange } from '../../../src/instances/loads.js';
import { PgStore } from '../../../src/store/postgres/index.js';
import { type PgCluster, startPostgres } from '../../helpers/postgres.js';

let cluster: PgCluster;
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(async () => {
  await cluster?.stop();
});

const policy = new Uint8Array(32).fill(1);
const until = async (ok: () => boolean): Promise<void> => {
  // Heartbeats of 50 ms, late on a busy machine: a generous ceiling.
  for (let i = 0; i < 6000 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
};

describe('PgLoadExchange', () => {
  it('adds the live peers of the same policy, and drops a peer that stops', async () => {
    const url = await cluster.createDatabase('loads');
    const stores = await Promise.all([PgStore.open(url), PgStore.open(url), PgStore.open(url)]);
    const own = [
      new Uint32Array([1, 2, 3]),
      new Uint32Array([10, 20, 30]),
      new Uint32Array([7, 7, 7]),
    ];
    const other = new Uint8Array(32).fill(2);
    const xs = await Promise.all(
      stores.map((s, i) =>
        PgLoadExchange.start(s, i === 2 ? other : policy, {
          own: () => own[i]!,
          pathways: 3,
          intervalMs: 50,
        }),
      ),
    );
    try {
      const [a, b, c] = xs as [PgLoadExchange, PgLoadExchange, PgLoadExchange];
      await until(() => a.peers[0] === 10 && b.peers[0] === 1);
      expect(Array.from(a.peers)).toEqual([10, 20, 30]);
      expect(Array.from(b.peers)).toEqual([1, 2, 3]);
      expect(addLoads(own[0]!, a)).toEqual([11, 22, 33]);
      // The instance of another policy counts none of them.
      expect(c.livePeers).toBe(0);
      own[1]![0] = 15;
      await until(() => a.peers[0] === 15);
      expect(a.peers[0]).toBe(15);
      await b.stop();
      await until(() => a.livePeers === 0);
      expect(Array.from(a.peers)).toEqual([0, 0, 0]);
    } finally {
      for (const x of xs) await x.stop();
      for (const s of stores) await s.close();
    }
  });
});

describe('PgLoadExchange leases', () => {
  it("grants slots within the capacity across instances, and frees a stopped one's", async () => {
    const url = await cluster.createDatabase('leases');
    const stores = await Promise.all([PgStore.open(url), PgStore.open(url)]);
    const own = [new Uint32Array([0, 0]), new Uint32Array([0, 0])];
    // Pathway 0 at a capacity of 10; pathway 1 without a limit. Each has placed 4 sessions
    // a beat: it asks for a headroom of 8.
    const placed = [new Uint32Array([0, 0]), new Uint32Array([0, 0])];
    const xs: PgLoadExchange[] = [];
    try {
      for (let i = 0; i < 2; i++) {
        xs.push(
          await PgLoadExchange.start(stores[i]!, policy, {
            own: () => own[i]!,
            pathways: 2,
            intervalMs: 60_000,
            capacities: () => [10, NO_CAPACITY_LIMIT],
            placed: () => {
              placed[i]![0]! += 4;
              return placed[i]!;
            },
          }),
        );
      }
      const [a, b] = xs as [PgLoadExchange, PgLoadExchange];
      // The first beat, A alone, nothing placed yet: a share of the free capacity (half of it,
      // for one instance); none of the pathway without a limit. A shortage takes a headroom.
      expect(Array.from(a.lease()!)).toEqual([5, 0]);
      await a.take();
      expect(Array.from(a.lease()!)).toEqual([Math.max(MIN_HEADROOM, 8), 0]);
      await a.beat();
      await b.beat();
      const total = () => a.lease()![0]! + b.lease()![0]!;
      expect(total()).toBeLessThanOrEqual(10);
      // Both beating at once, again and again: never more than the capacity in all.
      for (let k = 0; k < 10; k++) {
        await Promise.all([a.beat(true), b.beat(true)]);
        expect(total()).toBeLessThanOrEqual(10);
      }
      // A stops: its row goes, and B may take the whole capacity.
      await a.stop();
      await b.beat(true);
      expect(b.lease()![0]).toEqual(8);
      own[1]![0] = 9;
      await b.beat(true);
      expect(b.lease()![0]).toEqual(10);
    } finally {
      for (const x of xs) await x.stop();
      for (const s of stores) await s.close();
    }
  });
});

describe('LoadsHub', () => {
  it('answers each worker with the live others, and forgets a silent one', () => {
    const hub = new LoadsHub(100, 4);
    hub.beat(1, [1, 1], 0);
    hub.beat(2, [2, 3], 10);
    expect(hub.beat(1, [1, 1], 20)).toEqual({ wai: 'loads', counts: [2, 3], live: 1 });
    expect(hub.beat(2, [2, 3], 30).counts).toEqual([1, 1]);
    // Worker 1 silent past 4 intervals.
    expect(hub.beat(2, [2, 3], 500).counts).toEqual([0, 0]);
    hub.beat(3, [5, 5], 510);
    hub.drop(3);
    expect(hub.beat(2, [2, 3], 520).counts).toEqual([0, 0]);
  });
});
