import { type DecisionFields, signDecision } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { describe, expect, it } from 'vitest';
import { COMMIT_DELAY_AFTER, CommitQueue } from '../../src/engine/commit.js';
import { SqliteStore } from '../../src/store/sqlite/index.js';
import type { CommitBatch, CommitResult, SteeringStore } from '../../src/store/store.js';

const secretKey = new Uint8Array(32).fill(5);
const base: DecisionFields = {
  room: new Uint8Array(32).fill(1),
  signer: nodeBackend.publicKey(secretKey),
  policy: new Uint8Array(32).fill(2),
  t: 1_800_000_000_000_000n,
  session: new Uint8Array(16),
  draw: 1,
  protocol: 1,
  report: { present: 0, pathway: 0, throughput: 0n, buffer: 0n },
  pathways: [{ load: 0, limits: 7, status: 4, class: 0, joules: 0n, delivery: 0n, evidence: [] }],
  ttl: 10,
  reason: 6,
  priority: [0],
};

function decision(i: number) {
  const bytes = signDecision({ ...base, t: base.t + BigInt(i) }, secretKey, {
    backend: nodeBackend,
    check: false,
  });
  return { bytes, digest: nodeBackend.sha256(bytes.subarray(0, bytes.length - 64)) };
}

/** The embedded store, its commits answered a few milliseconds late, as a network store's are. */
function slowStore(inner: SqliteStore, batches: number[]): SteeringStore {
  return Object.assign(Object.create(inner) as SqliteStore, {
    async commit(batch: CommitBatch): Promise<CommitResult> {
      batches.push(batch.decisions.length + batch.records.length);
      const result = await inner.commit(batch);
      await new Promise((done) => setTimeout(done, 5));
      return result;
    },
  });
}

/** The embedded store, each commit's size noted in `batches`. */
function countingStore(inner: SqliteStore, batches: number[]): SteeringStore {
  return Object.assign(Object.create(inner) as SqliteStore, {
    commit(batch: CommitBatch): Promise<CommitResult> {
      batches.push(batch.decisions.length + batch.records.length);
      return inner.commit(batch);
    },
  });
}

/**
 * A queue whose delay is a minute (what is asserted does not depend on the machine's speed: a
 * commit that waited it out would time the test out), and `add(n)`: n more decisions queued.
 */
function delayedQueue(store: SteeringStore, maxPending = 1000) {
  const queue = new CommitQueue(store, { maxPending, delayMs: 60_000 });
  let next = 0;
  const add = (n: number) => Array.from({ length: n }, () => queue.addDecision(decision(next++)));
  return { queue, add };
}

const turn = () => new Promise((done) => setImmediate(done));

describe('CommitQueue over an asynchronous store', () => {
  it('has one commit in flight; what arrives meanwhile joins the next; each resolves once durable', async () => {
    const inner = new SqliteStore(':memory:');
    const batches: number[] = [];
    const queue = new CommitQueue(slowStore(inner, batches), { maxPending: 100 });
    const first = [0, 1, 2].map((i) => queue.addDecision(decision(i)));
    await new Promise((done) => setImmediate(done)); // the first commit starts
    expect(batches).toEqual([3]);
    const later = [3, 4].map((i) => queue.addDecision(decision(i)));
    // In flight and queued both count against the bound.
    expect(queue.pending).toBe(5);
    await Promise.all(first);
    await Promise.all(later);
    expect(batches).toEqual([3, 2]);
    for (let i = 0; i < 5; i++) {
      expect(await inner.getDecision(decision(i).digest)).toEqual(decision(i).bytes);
    }
    await queue.close();
    await expect(queue.addDecision(decision(9))).rejects.toThrow('closed');
    await inner.close();
  });

  it('writes what is queued before close resolves', async () => {
    const inner = new SqliteStore(':memory:');
    const batches: number[] = [];
    const queue = new CommitQueue(slowStore(inner, batches), { maxPending: 100 });
    const added = [0, 1].map((i) => queue.addDecision(decision(i)));
    await queue.close();
    await Promise.all(added);
    expect((await inner.stats()).decisions).toBe(2);
    await inner.close();
  });

  it('rejects the waiters of a commit that fails, and commits the next', async () => {
    const inner = new SqliteStore(':memory:');
    let fail = true;
    const store = Object.assign(Object.create(inner) as SqliteStore, {
      commit(batch: CommitBatch): Promise<CommitResult> {
        if (fail) {
          fail = false;
          return Promise.reject(new Error('disk full'));
        }
        return inner.commit(batch);
      },
    });
    const outcomes: boolean[] = [];
    const queue = new CommitQueue(store, {
      maxPending: 100,
      onCommit: (_size, ok) => outcomes.push(ok),
    });
    await expect(queue.addDecision(decision(0))).rejects.toThrow('disk full');
    await queue.addDecision(decision(1));
    expect(outcomes).toEqual([false, true]);
    await queue.close();
    await inner.close();
  });

  it('a loaded commit waits delayMs for more; one after a small commit goes at the next turn', async () => {
    const inner = new SqliteStore(':memory:');
    const batches: number[] = [];
    const store = countingStore(inner, batches);
    const { queue, add } = delayedQueue(store);
    // Nothing committed yet: the first commit goes at the next turn.
    await Promise.all(add(COMMIT_DELAY_AFTER));
    expect(batches).toEqual([COMMIT_DELAY_AFTER]);
    // After a commit of COMMIT_DELAY_AFTER: the next waits, and what arrives meanwhile joins it.
    const waiting = add(3);
    await turn();
    await turn();
    expect(batches).toEqual([COMMIT_DELAY_AFTER]);
    const more = add(2);
    // close() writes what waits at once.
    await queue.close();
    await Promise.all([...waiting, ...more]);
    expect(batches).toEqual([COMMIT_DELAY_AFTER, 5]);
    expect((await inner.stats()).decisions).toBe(COMMIT_DELAY_AFTER + 5);
    await inner.close();
  });

  it('a delayed commit goes once as many came since the last commit as it held', async () => {
    const inner = new SqliteStore(':memory:');
    const batches: number[] = [];
    const store = countingStore(inner, batches);
    const { queue, add } = delayedQueue(store);
    await Promise.all(add(COMMIT_DELAY_AFTER + 4));
    // Clients that each ask again once answered: all of them back, the commit goes at once
    // (with a delay of a minute, the test would time out otherwise).
    await Promise.all(add(COMMIT_DELAY_AFTER + 4));
    expect(batches).toEqual([COMMIT_DELAY_AFTER + 4, COMMIT_DELAY_AFTER + 4]);
    // One fewer: it waits (until close here).
    const fewer = add(COMMIT_DELAY_AFTER + 3);
    await turn();
    await turn();
    expect(batches).toHaveLength(2);
    await queue.close();
    await Promise.all(fewer);
    expect(batches).toEqual([
      COMMIT_DELAY_AFTER + 4,
      COMMIT_DELAY_AFTER + 4,
      COMMIT_DELAY_AFTER + 3,
    ]);
    await inner.close();
  });

  it('a delayed commit goes once the queue is full', async () => {
    const inner = new SqliteStore(':memory:');
    const batches: number[] = [];
    const { queue, add } = delayedQueue(slowStore(inner, batches), 30);
    const first = add(25);
    await turn(); // the commit of 25 starts
    // 10 arrive while it is in flight; after it, the next commit waits (fewer than 25 since).
    const during = add(10);
    await Promise.all(first);
    // 20 more: 30 pending, the queue full: it goes without waiting out the delay (a minute:
    // the test would time out otherwise).
    const more = add(20);
    await Promise.all([...during, ...more]);
    expect(batches).toEqual([25, 30]);
    await queue.close();
    await inner.close();
  });

  it('after a commit smaller than COMMIT_DELAY_AFTER, the next goes at the next turn', async () => {
    const inner = new SqliteStore(':memory:');
    const batches: number[] = [];
    const store = countingStore(inner, batches);
    const { queue, add } = delayedQueue(store);
    await Promise.all(add(COMMIT_DELAY_AFTER - 1));
    // Resolves without close: the delay never applied (the test would time out otherwise).
    await Promise.all(add(1));
    expect(batches).toEqual([COMMIT_DELAY_AFTER - 1, 1]);
    await queue.close();
    await inner.close();
  });
});
