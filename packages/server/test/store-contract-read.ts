/**
 * The store contract's reads at start: the decisions as kept (`readDecisions`, the session
 * table's rebuild) and the instance kept with each, and the order of policies from an instant
 * (`policySchedule`, the rotations put in force ahead): run against each implementation
 * (`store/sqlite.test.ts`, `integration/pg-store.test.ts`).
 */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { joinDecision } from '../src/store/compact.js';
import type { DecisionCursor, KeptDecision, SteeringStore } from '../src/store/store.js';
import { decisionAt } from './store-contract.js';

/** Stores of the suite, opened (and opened again) as a given instance. */
export interface ReadContractStore {
  readonly store: SteeringStore;
  reopen(instance?: number): Promise<SteeringStore>;
  dispose(): Promise<void>;
}

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const digestOf = (bytes: Uint8Array): string =>
  createHash('sha256')
    .update(bytes.subarray(0, bytes.length - 64))
    .digest('hex');

/** Every decision `readDecisions` gives, page by page. */
async function readAll(
  store: SteeringStore,
  from: bigint,
  to: bigint,
  page?: number,
): Promise<{ pages: number; kept: KeptDecision[] }> {
  const kept: KeptDecision[] = [];
  let pages = 0;
  for await (const got of store.readDecisions(from, to, page)) {
    pages++;
    if (page !== undefined) expect(got.length).toBeLessThanOrEqual(page);
    expect(got.length).toBeGreaterThan(0);
    kept.push(...got);
  }
  return { pages, kept };
}

/** The listing by time of a span, whole. */
async function listAll(store: SteeringStore, from: bigint, to: bigint) {
  const out: { digest: string; t: bigint }[] = [];
  let after: DecisionCursor | null = null;
  for (let page = 0; page < 1000; page++) {
    const got = await store.listDecisions(from, to, after, 7);
    for (const d of got.decisions) out.push({ digest: hex(d.digest), t: d.t });
    if (got.next === null) return out;
    after = got.next;
  }
  throw new Error('the listing did not end');
}

export function readContract(
  name: string,
  open: (instance?: number) => Promise<ReadContractStore>,
): void {
  describe(`${name}: the decisions read as kept`, () => {
    let held: ReadContractStore[] = [];
    let current: SteeringStore[] = [];
    afterEach(async () => {
      for (const s of current) await s.close();
      for (const h of held) await h.dispose();
      held = [];
      current = [];
    });

    it('reads a span in the listing’s order, as kept, a page at a time, each joining its bytes', async () => {
      const h = await open();
      held.push(h);
      current.push(h.store);
      let seed = 5;
      const rand = (n: number): number => {
        seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
        return seed % n;
      };
      const T = 1_800_000_000_000_000n;
      // Batches whose t interleave, equal t among them, over three evidence sets.
      let n = 0;
      for (let batch = 0; batch < 14; batch++) {
        const evidence = [[new Uint8Array(32).fill(1 + (batch % 3))]];
        const ds = Array.from({ length: 1 + rand(7) }, () =>
          decisionAt(T + BigInt(rand(50)) * 1000n, n++, evidence),
        );
        await h.store.commit({ records: [], decisions: ds });
      }
      for (const [from, to, page] of [
        [0n, (1n << 64n) - 1n, undefined],
        [0n, (1n << 64n) - 1n, 1],
        [T + 5000n, T + 31_000n, 3],
        [T + 7000n, T + 7001n, 2],
        [T + 45_000n, T + 90_000n, 4],
        [T + 60_000n, T + 90_000n, 4],
      ] as const) {
        const { kept, pages } = await readAll(h.store, from, to, page);
        const listed = await listAll(h.store, from, to);
        expect(
          kept.map((k) => ({ digest: digestOf(joinDecision(k.set, k.tail)), t: k.t })),
        ).toEqual(listed);
        if (page !== undefined && kept.length > 0) {
          expect(pages).toBeGreaterThanOrEqual(Math.ceil(kept.length / page));
        }
        for (const k of kept) expect(k.instance).toBeNull();
      }
      // The decisions of one set read in one call share its object.
      const { kept } = await readAll(h.store, 0n, (1n << 64n) - 1n);
      const bySet = new Map<string, Set<Uint8Array>>();
      for (const k of kept) {
        const objects = bySet.get(hex(k.set)) ?? new Set();
        objects.add(k.set);
        bySet.set(hex(k.set), objects);
      }
      expect(bySet.size).toBe(3);
      expect(kept.length).toBe(n);
      expect(Math.max(...[...bySet.values()].map((s) => s.size))).toBeLessThan(kept.length / 3);
    });

    it('gives the claim in force at an instant and every one after it, in the order of seq', async () => {
      const h = await open();
      held.push(h);
      current.push(h.store);
      const { store } = h;
      const room = new Uint8Array(32).fill(1);
      expect(await store.policySchedule!(room, 0n)).toEqual([]);
      const claim = (seq: number, at: bigint) => ({
        seq,
        digest: new Uint8Array(32).fill(seq),
        bytes: new Uint8Array([seq, seq, seq]),
        template: new Uint8Array(32).fill(1),
        at,
        by: 'operator' as const,
      });
      for (const [seq, at] of [
        [1, 100n],
        [2, 200n],
        [3, 1_800_000_000_300_000n],
      ] as const) {
        expect(await store.claimPolicy!(room, claim(seq, at))).toBe(true);
      }
      const seqs = async (now: bigint) =>
        (await store.policySchedule!(room, now)).map((c) => c.seq);
      expect(await seqs(50n)).toEqual([1, 2, 3]);
      expect(await seqs(100n)).toEqual([1, 2, 3]);
      expect(await seqs(199n)).toEqual([1, 2, 3]);
      expect(await seqs(200n)).toEqual([2, 3]);
      expect(await seqs(1_800_000_000_299_999n)).toEqual([2, 3]);
      expect(await seqs(1_800_000_000_300_000n)).toEqual([3]);
      expect(await seqs((1n << 63n) - 1n)).toEqual([3]);
      expect(await store.policySchedule!(new Uint8Array(32).fill(2), 500n)).toEqual([]);
      const [two, three] = await store.policySchedule!(room, 250n);
      expect(two).toEqual(claim(2, 200n));
      expect(three).toEqual(claim(3, 1_800_000_000_300_000n));
    });

    it('keeps with each decision the instance whose commit wrote it', async () => {
      const h = await open(3);
      held.push(h);
      const e = [[new Uint8Array(32).fill(7)]];
      await h.store.commit({
        records: [],
        decisions: [decisionAt(10n, 1, e), decisionAt(20n, 2, e)],
      });
      await h.store.close();
      const b = await h.reopen(70_000);
      await b.commit({ records: [], decisions: [decisionAt(15n, 3, e)] });
      await b.close();
      const c = await h.reopen();
      current.push(c);
      await c.commit({ records: [], decisions: [decisionAt(30n, 4, e)] });
      const { kept } = await readAll(c, 0n, 1000n);
      expect(kept.map((k) => [k.t, k.instance])).toEqual([
        [10n, 3],
        [15n, 70_000],
        [20n, 3],
        [30n, null],
      ]);
    });
  });
}
