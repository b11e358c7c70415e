/**
 * The store contract: what every `SteeringStore` guarantees, run against each implementation
 * (`sqlite-store.test.ts`, `pg-store.test.ts`).
 */
import { createHash } from 'node:crypto';
import {
  emptyRoot,
  encodeEntry,
  integrate,
  leafHash,
  openCheckpoint,
  proveConsistency,
  rootOf,
  TileHashReader,
  verifyConsistency,
} from '@wai-steering/tlog';
import { type DecisionFields, signDecision } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { planIntegration } from '../src/log/plan.js';
import { splitDecision } from '../src/store/compact.js';
import type { DecisionCursor, SteeringStore, StoredRecord } from '../src/store/store.js';
import { integrateAll, TEST_ORIGIN, testSigning } from './helpers/log.js';

/** A store of the suite: `reopen` opens the same data again (once `store` is closed). */
export interface ContractStore {
  readonly store: SteeringStore;
  reopen(): Promise<SteeringStore>;
  /** Removes what the store left (after `store.close()`). */
  dispose(): Promise<void>;
  /**
   * Alters, inside the database and past the store (as damage would, or someone with access to
   * it), one byte of the signed fields of each decision row kept under the key of `digest`.
   */
  damage(digest: Uint8Array): Promise<void>;
}

/** The decisions' lookup key of a digest: its first 8 bytes, a signed 64-bit integer. */
export function keyOf(digest: Uint8Array): bigint {
  return new DataView(digest.buffer, digest.byteOffset, 8).getBigInt64(0, false);
}

/** A tail with one byte of its signed fields changed (the 11th: past `t`, in the session). */
export function altered(tail: Uint8Array): Uint8Array {
  const out = Uint8Array.from(tail);
  out[10] = out[10]! ^ 0x5a;
  return out;
}

const secretKey = new Uint8Array(32).fill(3);
export const signer = nodeBackend.publicKey(secretKey);
const bytes = (n: number) => fc.uint8Array({ minLength: n, maxLength: n });
const u64 = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n });
const u128 = fc.bigInt({ min: 0n, max: (1n << 128n) - 1n });

/** Any decision fields (not necessarily valid by §7.2: the store's split is a cut of bytes). */
export const fieldsArb = fc.integer({ min: 0, max: 6 }).chain((m) =>
  fc.record({
    room: bytes(32),
    signer: fc.constant(signer),
    policy: bytes(32),
    t: u64,
    session: bytes(16),
    draw: fc.nat(999_999),
    protocol: fc.integer({ min: 1, max: 2 }),
    report: fc.record({ present: fc.nat(7), pathway: fc.nat(255), throughput: u64, buffer: u64 }),
    pathways: fc.array(
      fc.record({
        load: fc.nat(),
        limits: fc.nat(7),
        status: fc.nat(4),
        class: fc.nat(5),
        joules: u128,
        delivery: u128,
        evidence: fc.array(bytes(32), { maxLength: 8 }),
      }),
      { minLength: m, maxLength: m },
    ),
    ttl: fc.integer({ min: 1, max: 0xffffffff }),
    reason: fc.integer({ min: 1, max: 6 }),
    priority: fc.array(fc.nat(255), { minLength: m, maxLength: m }),
  }),
);

export function sign(f: DecisionFields): { bytes: Uint8Array; digest: Uint8Array } {
  const b = signDecision(f, secretKey, { backend: nodeBackend, check: false });
  const digest = createHash('sha256')
    .update(b.subarray(0, b.length - 64))
    .digest();
  return { bytes: b, digest: new Uint8Array(digest) };
}

/** A record as the store reads one: `start` and `end` at §C5.1's offsets 69 and 77. */
export function fakeRecord(start: bigint, end: bigint, n: number): StoredRecord {
  const bytes = new Uint8Array(120);
  const v = new DataView(bytes.buffer);
  bytes.set([0x57, 0x4d, 0x48, 0x31], 0);
  v.setUint32(8, n, true);
  v.setBigUint64(69, start, true);
  v.setBigUint64(77, end, true);
  const digest = new Uint8Array(createHash('sha256').update(bytes).digest());
  return { digest, bytes, hop: new Uint8Array(32).fill(n % 251), start, end };
}

/** A decision over `evidence` (32-byte digests, per pathway) at `t`, from session `n`. */
export function decisionAt(
  t: bigint,
  n: number,
  evidence: Uint8Array[][],
  policy = new Uint8Array(32).fill(8),
) {
  const session = new Uint8Array(16);
  new DataView(session.buffer).setUint32(0, n, true);
  return sign({
    room: new Uint8Array(32).fill(9),
    signer,
    policy,
    t,
    session,
    draw: 5,
    protocol: 1,
    report: { present: 3, pathway: 0, throughput: 5_000_000n, buffer: 0n },
    pathways: evidence.map((e) => ({
      load: n,
      limits: 7,
      status: 0,
      class: 4,
      joules: 123456789n,
      delivery: 987654321n,
      evidence: e,
    })),
    ttl: 10,
    reason: 5,
    priority: evidence.map((_, i) => i),
  });
}

const same = (a: Uint8Array | undefined, b: Uint8Array): boolean =>
  a !== undefined && Buffer.from(a).equals(Buffer.from(b));

/** The contract suite, over stores made by `open`. */
export function storeContract(name: string, open: () => Promise<ContractStore>): void {
  describe(`${name}: the store contract`, () => {
    let held: ContractStore[] = [];
    let current: SteeringStore[] = [];
    afterEach(async () => {
      for (const s of current) await s.close();
      for (const h of held) await h.dispose();
      held = [];
      current = [];
    });
    const fresh = async (): Promise<ContractStore> => {
      const h = await open();
      held.push(h);
      current.push(h.store);
      return h;
    };

    it('answers a decision row altered inside the database as damage, never as absent', async () => {
      const h = await fresh();
      const a = decisionAt(1_000n, 1, [[]]);
      const b = decisionAt(1_001n, 2, [[]]);
      await h.store.commit({ records: [], decisions: [a, b] });
      await h.damage(a.digest);
      const hex = Buffer.from(a.digest).toString('hex');
      await expect(h.store.getDecision(a.digest)).rejects.toMatchObject({
        name: 'StoreDamagedError',
        what: 'decision',
        digest: hex,
      });
      // The others are served as ever; an absent digest is absent.
      expect(same(await h.store.getDecision(b.digest), b.bytes)).toBe(true);
      expect(await h.store.getDecision(new Uint8Array(32).fill(0xee))).toBeUndefined();
      // The listing never lists the damaged row under a digest the server did not sign.
      await expect(h.store.listDecisions(0n, 10_000n, null, 10)).rejects.toMatchObject({
        name: 'StoreDamagedError',
        digest: `${hex.slice(0, 16)}…`,
      });
      // From the row after it on, the listing goes on.
      expect((await h.store.listDecisions(1_001n, 10_000n, null, 10)).decisions).toHaveLength(1);
    });

    it('rebuilds every decision byte for byte, across evidence sets and a reopen', async () => {
      const h = await fresh();
      const all: { bytes: Uint8Array; digest: Uint8Array }[] = [];
      const batches = fc.sample(
        fc.tuple(fc.array(fieldsArb, { minLength: 1, maxLength: 5 }), fc.nat(20)),
        { numRuns: 30, seed: 42 },
      );
      for (const [fs, repeat] of batches) {
        const batch = [];
        for (const f of fs) {
          batch.push(sign(f as DecisionFields));
          // Decisions of one window: the same evidence, other tails.
          for (let i = 0; i < repeat % 4; i++) {
            batch.push(
              sign({ ...(f as DecisionFields), t: BigInt(i), session: new Uint8Array(16).fill(i) }),
            );
          }
        }
        await h.store.commit({ records: [], decisions: batch });
        all.push(...batch);
      }
      // The encoder's compact form, its set by identity.
      const ev = [[new Uint8Array(32).fill(1)], [new Uint8Array(32).fill(2)]];
      const cut = Array.from({ length: 10 }, (_, i) => {
        const d = decisionAt(1_000_000n + BigInt(i), i, ev);
        return { ...d, ...splitDecision(d.bytes) };
      });
      const set = cut[0]!.set;
      await h.store.commit({
        records: [],
        decisions: cut.map((d) => ({ digest: d.digest, set, tail: d.tail })),
      });
      all.push(...cut);
      await h.store.close();
      const reopened = await h.reopen();
      current = [reopened];
      for (const d of all) expect(same(await reopened.getDecision(d.digest), d.bytes)).toBe(true);
      const wrong = all[0]!.digest.slice();
      wrong[31]! ^= 1;
      expect(await reopened.getDecision(wrong)).toBeUndefined();
      expect(await reopened.getDecision(new Uint8Array(31))).toBeUndefined();
    });

    it('keeps records by digest, tells which were new, and finds those a window may name', async () => {
      const { store } = await fresh();
      const a = fakeRecord(100n, 200n, 1);
      const b = fakeRecord(150n, 300n, 2);
      const c = fakeRecord(50n, 120n, 3);
      const first = await store.commit({ records: [a, b], decisions: [] });
      expect(first.inserted).toEqual([true, true]);
      const second = await store.commit({ records: [b, c, c], decisions: [] });
      expect(second.inserted).toEqual([false, true, false]);
      expect(same(await store.getRecord(b.digest), b.bytes)).toBe(true);
      expect(await store.getRecord(new Uint8Array(32))).toBeUndefined();
      const after: StoredRecord[] = [];
      for await (const r of store.recordsEndingAfter(150n)) after.push(r);
      expect(after.map((r) => r.end)).toEqual([200n, 300n]);
      expect(after.map((r) => r.start)).toEqual([100n, 150n]);
      expect(same(after[0]!.digest, a.digest) && same(after[0]!.hop, a.hop)).toBe(true);
      expect((await store.stats()).records).toBe(3);
    });

    it('reads the records of given hops whose end is in a range, in ascending start', async () => {
      const { store } = await fresh();
      // Hops 1 and 2 (fakeRecord's hop is n % 251), and 3 that is not asked for.
      const rs = [
        fakeRecord(300n, 400n, 1),
        fakeRecord(100n, 200n, 2),
        fakeRecord(150n, 250n, 253), // hop 2 as well, another record
        fakeRecord(0n, 100n, 1), // ends at the range's open bound: out
        fakeRecord(390n, 400n, 3), // another hop: out
        fakeRecord(400n, 401n, 2), // ends past the range: out
        fakeRecord(20n, 400n, 252), // hop 1, starts first, ends at the closed bound: in
      ];
      await store.commit({ records: rs, decisions: [] });
      const hop = (n: number) => new Uint8Array(32).fill(n);
      const got = await store.recordsOfHops([hop(1), hop(2)], 100n, 400n);
      expect(got.map((r) => [r.start, r.end])).toEqual([
        [20n, 400n],
        [100n, 200n],
        [150n, 250n],
        [300n, 400n],
      ]);
      const want = [rs[6]!, rs[1]!, rs[2]!, rs[0]!];
      got.forEach((r, i) => {
        expect(same(r.digest, want[i]!.digest) && same(r.bytes, want[i]!.bytes)).toBe(true);
        expect(same(r.hop, want[i]!.hop)).toBe(true);
      });
      expect(await store.recordsOfHops([hop(3)], 0n, 1_000n)).toHaveLength(1);
      expect(await store.recordsOfHops([], 0n, 1_000n)).toEqual([]);
      expect(await store.recordsOfHops([hop(1)], 400n, 400n)).toEqual([]);
      // Records of one start in the order of their digests.
      const tied = [fakeRecord(500n, 600n, 1), fakeRecord(500n, 600n, 252)];
      await store.commit({ records: tied, decisions: [] });
      const byDigest = tied.map((r) => Buffer.from(r.digest)).sort(Buffer.compare);
      const page = await store.recordsOfHops([hop(1)], 500n, 600n);
      expect(page.map((r) => Buffer.from(r.digest))).toEqual(byDigest);
    });

    it('keeps blobs by kind and digest, idempotently', async () => {
      const { store } = await fresh();
      const d = new Uint8Array(32).fill(7);
      await store.putBlob('policy', d, new Uint8Array([1, 2, 3]));
      await store.putBlob('policy', d, new Uint8Array([1, 2, 3]));
      expect(same(await store.getBlob('policy', d), new Uint8Array([1, 2, 3]))).toBe(true);
      expect(await store.getBlob('room', d)).toBeUndefined();
    });

    it('keeps the latest capacity report of each pathway and hop, per room', async () => {
      const { store } = await fresh();
      const room = new Uint8Array(32).fill(1);
      const other = new Uint8Array(32).fill(2);
      const r = (pathway: string, hop: string, t: bigint) => ({
        pathway,
        hop,
        t,
        jws: `${hop}@${t}`,
      });
      expect(await store.putCapacityReport!(room, r('cdn-a', 'aa', 10n))).toBe(true);
      expect(await store.putCapacityReport!(room, r('cdn-a', 'aa', 10n))).toBe(false); // a replay
      expect(await store.putCapacityReport!(room, r('cdn-a', 'aa', 9n))).toBe(false); // older
      expect(await store.putCapacityReport!(room, r('cdn-a', 'aa', 1_800_000_000_000_123n))).toBe(
        true,
      );
      expect(await store.putCapacityReport!(room, r('cdn-b', 'bb', 5n))).toBe(true);
      expect(await store.putCapacityReport!(other, r('cdn-a', 'aa', 1n))).toBe(true);
      const held = (await store.capacityReports!(room)).sort((x, y) =>
        x.pathway.localeCompare(y.pathway),
      );
      expect(held).toEqual([r('cdn-a', 'aa', 1_800_000_000_000_123n), r('cdn-b', 'bb', 5n)]);
      expect(await store.capacityReports!(new Uint8Array(32))).toEqual([]);
    });

    it('holds, for any sequence of reports, the one of each pathway and hop with the latest t', async () => {
      const { store } = await fresh();
      let round = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.record({
              pathway: fc.constantFrom('cdn-a', 'cdn-b'),
              hop: fc.constantFrom('aa', 'bb', 'cc'),
              t: fc.bigInt({ min: 0n, max: (1n << 62n) - 1n }),
            }),
            { maxLength: 12 },
          ),
          async (reports) => {
            // A room per run: the store is shared by the runs.
            const room = new Uint8Array(32);
            new DataView(room.buffer).setUint32(0, ++round);
            const latest = new Map<string, { t: bigint; jws: string }>();
            for (const [i, r] of reports.entries()) {
              const jws = `${i}`;
              const key = `${r.pathway} ${r.hop}`;
              const held = latest.get(key);
              const newer = held === undefined || r.t > held.t;
              expect(await store.putCapacityReport!(room, { ...r, jws })).toBe(newer);
              if (newer) latest.set(key, { t: r.t, jws });
            }
            const got = new Map(
              (await store.capacityReports!(room)).map((x) => [
                `${x.pathway} ${x.hop}`,
                { t: x.t, jws: x.jws },
              ]),
            );
            expect(got).toEqual(latest);
          },
        ),
        { numRuns: 40 },
      );
    });

    it('orders the policies put in force: the first to claim a seq has it, bytes and all', async () => {
      const { store } = await fresh();
      const room = new Uint8Array(32).fill(1);
      expect(await store.policyInForce!(room)).toBeUndefined();
      const claim = (seq: number, fill: number, by: 'operator' | 'live') => ({
        seq,
        digest: new Uint8Array(32).fill(fill),
        bytes: new Uint8Array([fill, fill, fill]),
        template: new Uint8Array(32).fill(9),
        at: 1_800_000_000_000_000n + BigInt(seq),
        by,
      });
      expect(await store.claimPolicy!(room, claim(1, 3, 'operator'))).toBe(true);
      expect(await store.claimPolicy!(room, claim(2, 4, 'live'))).toBe(true);
      // Another instance's claim of seq 2: refused, and its bytes are not kept.
      expect(await store.claimPolicy!(room, claim(2, 5, 'live'))).toBe(false);
      expect(await store.getBlob('policy', new Uint8Array(32).fill(5))).toBeUndefined();
      const inForce = await store.policyInForce!(room);
      expect(inForce).toMatchObject({ seq: 2, by: 'live', at: 1_800_000_000_000_002n });
      expect(same(inForce!.digest, new Uint8Array(32).fill(4))).toBe(true);
      expect(same(inForce!.bytes, new Uint8Array([4, 4, 4]))).toBe(true);
      expect(same(inForce!.template, new Uint8Array(32).fill(9))).toBe(true);
      expect(same(await store.getBlob('policy', inForce!.digest), inForce!.bytes)).toBe(true);
      expect(await store.policyInForce!(new Uint8Array(32).fill(2))).toBeUndefined();
      // Every claim, in the order of seq.
      const all = await store.policyClaims!(room);
      expect(all.map((c) => [c.seq, c.by, c.at, c.digest[0], c.bytes[0]])).toEqual([
        [1, 'operator', 1_800_000_000_000_001n, 3, 3],
        [2, 'live', 1_800_000_000_000_002n, 4, 4],
      ]);
      expect(await store.policyClaims!(new Uint8Array(32).fill(2))).toEqual([]);
      // Pruning keeps the latest claim, however old.
      await store.prune(0n, 2_000_000_000_000_000n);
      expect(await store.policyInForce!(room)).toMatchObject({ seq: 2 });
    });

    it('prunes old decisions with their sets, and keeps every record a kept decision names', async () => {
      const { store } = await fresh();
      const old = [fakeRecord(0n, 10n, 1), fakeRecord(0n, 10n, 2)];
      const later = [fakeRecord(1000n, 1010n, 3)];
      await store.commit({ records: [...old, ...later], decisions: [] });
      const d1 = decisionAt(5_000n, 1, [[old[0]!.digest]]);
      const d2 = decisionAt(6_000n, 2, [[later[0]!.digest]]);
      const d3 = decisionAt(9_000n, 3, [[old[1]!.digest]]);
      await store.commit({ records: [], decisions: [d1, d2] });
      await store.commit({ records: [], decisions: [d3] });
      // Decisions before 7 000 go; d3 names old[1], which stays although it is old.
      const pruned = await store.prune(5_000n, 7_000n);
      expect(pruned.decisions).toBe(2);
      expect(await store.getDecision(d1.digest)).toBeUndefined();
      expect(await store.getDecision(d2.digest)).toBeUndefined();
      expect(same(await store.getDecision(d3.digest), d3.bytes)).toBe(true);
      expect(same(await store.getRecord(old[1]!.digest), old[1]!.bytes)).toBe(true);
      // Every decision gone: the records go by age alone.
      await store.prune(1_005n, 10_000n);
      expect(await store.getDecision(d3.digest)).toBeUndefined();
      expect(await store.getRecord(old[1]!.digest)).toBeUndefined();
      expect(await store.getRecord(later[0]!.digest)).toBeDefined();
      const s = await store.stats();
      expect([s.decisions, s.sets, s.records]).toEqual([0, 0, 1]);
      // And the store decides again after its current set was pruned.
      const d4 = decisionAt(11_000n, 4, [[later[0]!.digest]]);
      await store.commit({ records: [], decisions: [d4] });
      expect(same(await store.getDecision(d4.digest), d4.bytes)).toBe(true);
    });

    it('prunes the live policies replaced long before the oldest kept decision, and their claims', async () => {
      const { store } = await fresh();
      const room = new Uint8Array(32).fill(9);
      const P = (n: number) => new Uint8Array(32).fill(n);
      const T0 = 1_800_000_000_000_000n;
      const S = 1_000_000n;
      const H = 3_600n * S;
      // The operator's policy 4, then live ones over it: 1, 2, 1 again, and 3 ten hours later.
      const claims: [number, number, 'operator' | 'live', bigint][] = [
        [1, 4, 'operator', T0],
        [2, 1, 'live', T0 + S],
        [3, 2, 'live', T0 + 2n * S],
        [4, 1, 'live', T0 + 3n * S],
        [5, 3, 'live', T0 + 10n * H],
      ];
      const claim = (seq: number, n: number, by: 'operator' | 'live', at: bigint) =>
        store.claimPolicy!(room, {
          seq,
          digest: P(n),
          bytes: new Uint8Array([n]),
          template: P(4),
          at,
          by,
        });
      for (const c of claims) expect(await claim(...c)).toBe(true);
      const r = fakeRecord(0n, 10n, 1);
      await store.commit({ records: [r], decisions: [] });
      // A decision under policy 2, and one twenty hours later under policy 3.
      const under2 = decisionAt(T0 + 2_500_000n, 1, [[r.digest]], P(2));
      await store.commit({ records: [], decisions: [under2] });
      await store.commit({
        records: [],
        decisions: [decisionAt(T0 + 20n * H, 2, [[r.digest]], P(3))],
      });
      const held = async () => {
        const out: boolean[] = [];
        for (const n of [1, 2, 3, 4]) out.push((await store.getBlob('policy', P(n))) !== undefined);
        return out;
      };
      // Every decision kept: every policy a kept decision may name stays.
      await store.prune(0n, T0);
      expect(await held()).toEqual([true, true, true, true]);
      // The decision under policy 2 gone, the live policies replaced an hour or more before the
      // oldest kept decision go with their claims; the operator's and the one in force stay.
      await store.prune(0n, T0 + 20n * H);
      expect(await store.getDecision(under2.digest)).toBeUndefined();
      expect(await held()).toEqual([false, false, true, true]);
      expect(await store.policyInForce!(room)).toMatchObject({ seq: 5 });
      // The order goes on from the claim in force.
      expect(await claim(5, 1, 'live', T0 + 21n * H)).toBe(false);
      expect(await claim(6, 1, 'live', T0 + 21n * H)).toBe(true);
      expect(await held()).toEqual([true, false, true, true]);
    });

    it('stores the decisions of one window in one evidence set', async () => {
      const { store } = await fresh();
      const evidence = Array.from({ length: 3 }, (_, p) =>
        Array.from({ length: 12 }, (_, i) => new Uint8Array(32).fill(16 * p + i + 1)),
      );
      const all = [];
      for (let k = 0; k < 10; k++) {
        const batch = Array.from({ length: 50 }, (_, i) =>
          decisionAt(1_800_000_000_000_000n + BigInt(k * 50 + i), k * 50 + i, evidence),
        );
        await store.commit({ records: [], decisions: batch });
        all.push(...batch);
      }
      const s = await store.stats();
      expect(s.decisions).toBe(500);
      expect(s.sets).toBe(1);
      for (const d of [all[0]!, all[250]!, all[499]!]) {
        expect(same(await store.getDecision(d.digest), d.bytes)).toBe(true);
      }
    });

    it('lists decisions in ascending t, equal t in the log’s order, whatever order they were committed in', async () => {
      const { store } = await fresh();
      // Two instances' decisions: committed in batches whose t interleave, many t equal.
      let seed = 11;
      const rand = (n: number): number => {
        seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
        return seed % n;
      };
      const T = 1_800_000_000_000_000n;
      const stored: { digest: string; t: bigint }[] = [];
      let n = 0;
      for (let batch = 0; batch < 12; batch++) {
        const ds = Array.from({ length: 1 + rand(6) }, () => {
          const t = T + BigInt(rand(40)) * 1000n;
          return { t, d: decisionAt(t, n++, [[new Uint8Array(32).fill(1)]]) };
        });
        await store.commit({ records: [], decisions: ds.map((x) => x.d) });
        for (const x of ds) stored.push({ digest: hex(x.d.digest), t: x.t });
      }
      await store.beginLog(TEST_ORIGIN);
      await integrateAll(store);
      // The log holds them in the order of the commits; the listing is its stable sort by t.
      const logged = (await store.logEntries(0n, 1000n)).map((e) => ({
        digest: hex(e.digest),
        t: e.t,
      }));
      expect(logged).toEqual(stored);
      const sorted = logged
        .map((x, i) => ({ ...x, i }))
        .sort((a, b) => (a.t < b.t ? -1 : a.t > b.t ? 1 : a.i - b.i));
      for (const [from, to, limit] of [
        [0n, (1n << 64n) - 1n, 1000],
        [0n, (1n << 64n) - 1n, 1],
        [T + 5000n, T + 31_000n, 3],
        [T + 7000n, T + 7001n, 2],
        [T + 39_000n, T + 50_000n, 4],
      ] as const) {
        const seen: { digest: string; t: bigint }[] = [];
        let after: DecisionCursor | null = null;
        for (let page = 0; page < 200; page++) {
          const got = await store.listDecisions(from, to, after, limit);
          expect(got.decisions.length).toBeLessThanOrEqual(limit);
          for (const d of got.decisions) seen.push({ digest: hex(d.digest), t: d.t });
          if (got.next === null) break;
          after = got.next;
        }
        expect(seen).toEqual(
          sorted.filter((x) => x.t >= from && x.t < to).map(({ digest, t }) => ({ digest, t })),
        );
      }
    });

    it('logs every decision committed once, in the order of the commits, and signs its checkpoints', async () => {
      const { store } = await fresh();
      expect(await store.logHead()).toBeUndefined();
      expect(await store.beginLog(TEST_ORIGIN)).toBe(TEST_ORIGIN);
      // The origin is the first one's.
      expect(await store.beginLog('other.example/log')).toBe(TEST_ORIGIN);
      // An empty log: a checkpoint of size 0, the empty tree's root.
      const signing = testSigning();
      const [empty] = await integrateAll(store, signing);
      expect(empty?.size).toBe(0n);
      const opened0 = openCheckpoint(empty!.text, { origin: TEST_ORIGIN, logKeys: [signing.key] });
      expect(
        opened0.ok && Buffer.from(opened0.value.checkpoint.root).equals(Buffer.from(emptyRoot())),
      ).toBe(true);
      // Nothing pending, a checkpoint of the head's size: nothing to do.
      expect(await integrateAll(store, signing)).toEqual([]);
      const ev = [[new Uint8Array(32).fill(1)]];
      const commits: { bytes: Uint8Array; digest: Uint8Array }[][] = [];
      let n = 0;
      for (let c = 0; c < 9; c++) {
        const batch = Array.from({ length: 1 + ((c * 37) % 70) }, () =>
          decisionAt(2_000_000n + BigInt(n), n++, ev),
        );
        // The same decision twice (in a batch, and in a later batch) is one entry.
        if (c === 3) batch.push(batch[0]!);
        if (c === 5) batch.push(commits[1]![0]!);
        await store.commit({ records: [], decisions: batch });
        commits.push(batch);
        // Integrated at some commits, not others.
        if (c % 3 === 1) await integrateAll(store, signing);
      }
      const signed = await integrateAll(store, signing);
      const distinct = new Map<string, Uint8Array>();
      for (const batch of commits)
        for (const d of batch)
          if (!distinct.has(hex(d.digest))) distinct.set(hex(d.digest), d.bytes);
      const head = await store.logHead();
      expect(head?.size).toBe(BigInt(distinct.size));
      const entries = await store.logEntries(0n, head!.size);
      expect(entries.map((e) => hex(e.digest))).toEqual([...distinct.keys()]);
      expect(entries.map((e) => e.index)).toEqual(entries.map((_, i) => BigInt(i)));
      for (const e of entries) {
        expect(e.t).toBe(new DataView(distinct.get(hex(e.digest))!.buffer).getBigUint64(101, true));
        expect(await store.logIndexOf(e.t, e.digest)).toBe(e.index);
      }
      expect(await store.logIndexOf(entries[0]!.t, new Uint8Array(32).fill(0xee))).toBeUndefined();
      expect(await store.logIndexOf(entries[0]!.t + 1n, entries[0]!.digest)).toBeUndefined();
      // The root is RFC 6962's of the entries (computed here without the store).
      const leaves = entries.map((e) => leafHash(encodeEntry({ t: e.t, digest: e.digest })));
      expect(hex(head!.root)).toBe(hex(rootOf(leaves)));
      const latest = await store.latestLogCheckpoint();
      expect(latest).toEqual(signed[signed.length - 1]);
      const opened = openCheckpoint(latest!.text, { origin: TEST_ORIGIN, logKeys: [signing.key] });
      expect(opened.ok && opened.value.checkpoint.size).toBe(head!.size);
      expect(opened.ok && hex(opened.value.checkpoint.root)).toBe(hex(rootOf(leaves)));
      // Every checkpoint kept, by size; each consistent with the latest.
      const all = await store.logCheckpoints(0n, 100);
      expect(all.map((c) => c.size)).toEqual(
        [...all.map((c) => c.size)].sort((a, b) => (a < b ? -1 : 1)),
      );
      expect(all.length).toBeGreaterThanOrEqual(4);
      for (const c of all) {
        const o = openCheckpoint(c.text, { origin: TEST_ORIGIN, logKeys: [signing.key] });
        expect(o.ok).toBe(true);
        if (!o.ok) continue;
        const source = (level: number, index: bigint) =>
          rootOf(
            leaves.slice(Number(index << BigInt(level)), Number((index + 1n) << BigInt(level))),
          );
        const proof = proveConsistency(c.size, head!.size, source);
        expect(
          verifyConsistency({
            oldSize: c.size,
            newSize: head!.size,
            oldRoot: o.value.checkpoint.root,
            newRoot: head!.root,
            proof,
          }),
        ).toBeUndefined();
      }
    });

    it('logs two digests that share their t and first 8 bytes, and a digest stored twice once', async () => {
      const { store } = await fresh();
      await store.beginLog(TEST_ORIGIN);
      const base = decisionAt(7_000n, 1, [[new Uint8Array(32).fill(5)]]);
      const cut = splitDecision(base.bytes);
      // Digests given by the caller (the store keeps what it is given): the second shares the
      // first's first 8 bytes, the third is the first again.
      const d1 = base.digest;
      const d2 = d1.slice();
      d2[31]! ^= 0xff;
      const as = (digest: Uint8Array) => ({ digest, set: cut.set, tail: cut.tail });
      await store.commit({ records: [], decisions: [as(d1), as(d2)] });
      await integrateAll(store);
      await store.commit({ records: [], decisions: [as(d1), as(d2), as(d1)] });
      await integrateAll(store);
      const entries = await store.logEntries(0n, 10n);
      expect(entries.map((e) => [hex(e.digest), e.t])).toEqual([
        [hex(d1), 7_000n],
        [hex(d2), 7_000n],
      ]);
      expect(await store.logIndexOf(7_000n, d1)).toBe(0n);
      expect(await store.logIndexOf(7_000n, d2)).toBe(1n);
      const d3 = d1.slice();
      d3[30]! ^= 0xff;
      expect(await store.logIndexOf(7_000n, d3)).toBeUndefined();
      // A third digest of the same t and prefix, in a batch with the others again.
      await store.commit({ records: [], decisions: [as(d2), as(d3), as(d3)] });
      await integrateAll(store);
      expect(await store.logIndexOf(7_000n, d3)).toBe(2n);
      expect((await store.logHead())?.size).toBe(3n);
    });

    it('logs a digest stored twice once in a batch of hundreds, the others at their indexes', async () => {
      const { store } = await fresh();
      await store.beginLog(TEST_ORIGIN);
      const ev = [[new Uint8Array(32).fill(3)]];
      const first = Array.from({ length: 20 }, (_, i) => decisionAt(5_000_000n + BigInt(i), i, ev));
      await store.commit({ records: [], decisions: first });
      await integrateAll(store);
      // 700 more in one integration (a SQLite store inserts their keys hundreds at a time), with
      // one logged before (in the second hundreds) and one of the batch again (in the third).
      const batch = Array.from({ length: 700 }, (_, i) =>
        decisionAt(5_000_100n + BigInt(i), 100 + i, ev),
      );
      const sent = [...batch.slice(0, 300), first[7]!, ...batch.slice(300, 600), batch[450]!];
      sent.push(...batch.slice(600));
      for (let i = 0; i < sent.length; i += 64)
        await store.commit({ records: [], decisions: sent.slice(i, i + 64) });
      await integrateAll(store);
      const entries = await store.logEntries(0n, 1000n);
      expect(entries.map((e) => hex(e.digest))).toEqual(
        [...first, ...batch].map((d) => hex(d.digest)),
      );
      expect(await store.logIndexOf(5_000_000n + 7n, first[7]!.digest)).toBe(7n);
      expect(await store.logIndexOf(5_000_100n + 450n, batch[450]!.digest)).toBe(470n);
      expect(await store.logIndexOf(5_000_100n + 699n, batch[699]!.digest)).toBe(719n);
    });

    it('stores the tiles of level 1 and above that the writer makes, and the edge it needs', async () => {
      const { store } = await fresh();
      await store.beginLog(TEST_ORIGIN);
      const ev = [[new Uint8Array(32).fill(1)]];
      const made: Uint8Array[] = [];
      // 700 entries in uneven batches: two full level-0 tiles, a partial level-1 tile of width 2.
      for (let i = 0; i < 700; ) {
        const k = Math.min(700 - i, 1 + ((i * 7) % 97));
        const batch = Array.from({ length: k }, (_, j) =>
          decisionAt(3_000_000n + BigInt(i + j), i + j, ev),
        );
        await store.commit({ records: [], decisions: batch });
        for (const d of batch)
          made.push(encodeEntry({ t: 3_000_000n + BigInt(made.length), digest: d.digest }));
        i += k;
        if (i % 3 === 0) await integrateAll(store);
      }
      await integrateAll(store);
      const whole = integrate(
        { size: 0n, partialTiles: [], partialBundle: new Uint8Array(0) },
        made,
      );
      const level1 = whole.tiles.find((t) => t.tile.level === 1)!;
      expect(level1.tile.width).toBe(2);
      expect(hex((await store.logTile(1, 0n))!)).toBe(hex(level1.data));
      expect(await store.logTile(2, 0n)).toBeUndefined();
      // The tree read back through the tiles (level 0 from the entries) gives the root.
      const head = (await store.logHead())!;
      const reader = new TileHashReader({ size: head.size, root: head.root }, async (tile) => {
        if (tile.level === 'entries') return undefined;
        if (tile.level === 0) {
          const rows = await store.logEntries(
            tile.index * 256n,
            tile.index * 256n + BigInt(tile.width),
          );
          const out = new Uint8Array(32 * rows.length);
          rows.forEach((r, i) => {
            out.set(leafHash(encodeEntry(r)), 32 * i);
          });
          return out;
        }
        const t = await store.logTile(tile.level, tile.index);
        return t?.slice(0, 32 * tile.width);
      });
      expect(hex(await reader.rootAt(head.size))).toBe(hex(whole.root));
      expect(hex(await reader.rootAt(300n))).toBe(
        hex(rootOf(made.slice(0, 300).map((e) => leafHash(e)))),
      );
    });

    it('integrates all or nothing: a plan that fails leaves the log and its pending entries as they were', async () => {
      const { store } = await fresh();
      await store.beginLog(TEST_ORIGIN);
      await store.commit({ records: [], decisions: [decisionAt(5n, 1, [[new Uint8Array(32)]])] });
      await expect(
        store.integrateLog(
          () => {
            throw new Error('killed');
          },
          { maxEntries: 10, maxDelayMs: 2000 },
        ),
      ).rejects.toThrow('killed');
      expect((await store.logHead())?.size).toBe(0n);
      expect(await store.latestLogCheckpoint()).toBeUndefined();
      // A plan of other entries than given is refused, and nothing is written either.
      const signing = testSigning();
      await expect(
        store.integrateLog(
          (input) =>
            planIntegration(
              { ...input, entries: [...input.entries, ...input.entries] },
              signing,
              1n,
            ),
          { maxEntries: 10, maxDelayMs: 2000 },
        ),
      ).rejects.toThrow(/plan/);
      expect((await store.logHead())?.size).toBe(0n);
      await integrateAll(store, signing);
      expect((await store.logHead())?.size).toBe(1n);
      expect((await store.latestLogCheckpoint())?.size).toBe(1n);
    });

    it('takes batches of a bounded size, and signs a checkpoint only once nothing is left', async () => {
      const { store } = await fresh();
      await store.beginLog(TEST_ORIGIN);
      const ev = [[new Uint8Array(32).fill(2)]];
      for (let c = 0; c < 6; c++) {
        const batch = Array.from({ length: 10 }, (_, i) =>
          decisionAt(BigInt(c * 10 + i), c * 10 + i, ev),
        );
        await store.commit({ records: [], decisions: batch });
      }
      const signing = testSigning();
      const runs: { appended: number; more: boolean; signed: boolean }[] = [];
      for (;;) {
        const done = await store.integrateLog((input) => planIntegration(input, signing, 7n), {
          maxEntries: 25,
          maxDelayMs: 2000,
        });
        if (done === undefined) break;
        runs.push({
          appended: done.appended,
          more: done.more,
          signed: done.checkpoint !== undefined,
        });
      }
      // Whole commits at a time, at least one: 30, 30 (the limit passed at the third row).
      expect(runs).toEqual([
        { appended: 30, more: true, signed: false },
        { appended: 30, more: false, signed: true },
      ]);
      expect((await store.logCheckpoints(0n, 10)).map((c) => [c.size, c.issued])).toEqual([
        [60n, 7n],
      ]);
    });

    it('gives the integrator’s lease to one holder at a time, and to another once it expires or is given up', async () => {
      const { store } = await fresh();
      expect(await store.takeLogLease('a', 60_000)).toBe(true);
      expect(await store.takeLogLease('b', 60_000)).toBe(false);
      expect(await store.takeLogLease('a', 60_000)).toBe(true); // renewed
      await store.releaseLogLease('b'); // not b's: nothing
      expect(await store.takeLogLease('b', 60_000)).toBe(false);
      await store.releaseLogLease('a');
      expect(await store.takeLogLease('b', 1)).toBe(true);
      // Expired: the next taker has it (the expiry passes in a few ms).
      let taken = false;
      for (let i = 0; i < 200 && !taken; i++) {
        taken = await store.takeLogLease('c', 60_000);
        if (!taken) await new Promise((r) => setTimeout(r, 5));
      }
      expect(taken).toBe(true);
      expect(await store.takeLogLease('b', 60_000)).toBe(false);
    });

    it('prunes the log with the decisions: consistency between kept checkpoints stays provable', async () => {
      const { store } = await fresh();
      await store.beginLog(TEST_ORIGIN);
      const signing = testSigning();
      const ev = [[new Uint8Array(32).fill(3)]];
      let n = 0;
      // Checkpoints issued at 1 000, 2 000, … 9 000, each after 100 more decisions.
      for (let k = 1; k <= 9; k++) {
        const batch = Array.from({ length: 100 }, () => decisionAt(BigInt(n), n++, ev));
        await store.commit({ records: [], decisions: batch });
        await integrateAll(store, signing, { issued: () => BigInt(k * 1000) });
      }
      const before = await store.logCheckpoints(0n, 100);
      expect(before.map((c) => c.size)).toEqual([
        100n,
        200n,
        300n,
        400n,
        500n,
        600n,
        700n,
        800n,
        900n,
      ]);
      // Nothing issued before 500: nothing goes.
      expect(await store.pruneLog(500n)).toEqual({ minIndex: 0n, entries: 0, checkpoints: 0 });
      // Issued before 4 500: the checkpoints of 100 to 400 go; the minimum index is 400; the
      // entries of the level-0 tile below it (0 … 255) go.
      expect(await store.pruneLog(4_500n)).toEqual({
        minIndex: 400n,
        entries: 256,
        checkpoints: 4,
      });
      expect((await store.logHead())?.minIndex).toBe(400n);
      expect((await store.logEntries(0n, 1000n))[0]?.index).toBe(256n);
      const kept = await store.logCheckpoints(0n, 100);
      expect(kept.map((c) => c.size)).toEqual([500n, 600n, 700n, 800n, 900n]);
      // The latest is kept whatever its age, and the minimum index never goes down.
      expect((await store.pruneLog(1_000_000n)).minIndex).toBe(800n);
      expect((await store.logCheckpoints(0n, 100)).map((c) => c.size)).toEqual([900n]);
      expect((await store.pruneLog(10n)).minIndex).toBe(800n);
      // What a proof between sizes at or above the minimum index needs is still there: the tree
      // from the stored tiles and kept entries (level 0 of [768, 900), level 1 as stored).
      const head = (await store.logHead())!;
      const source = async (tile: { level: number | 'entries'; index: bigint; width: number }) => {
        if (tile.level === 0) {
          const rows = await store.logEntries(
            tile.index * 256n,
            tile.index * 256n + BigInt(tile.width),
          );
          if (rows.length !== tile.width) return undefined;
          const out = new Uint8Array(32 * rows.length);
          rows.forEach((r, i) => {
            out.set(leafHash(encodeEntry(r)), 32 * i);
          });
          return out;
        }
        if (tile.level === 'entries') return undefined;
        return (await store.logTile(tile.level, tile.index))?.slice(0, 32 * tile.width);
      };
      const reader = new TileHashReader({ size: head.size, root: head.root }, source);
      const proof = await reader.consistencyProof(800n, 900n);
      const at800 = await reader.rootAt(800n);
      expect(
        verifyConsistency({
          oldSize: 800n,
          newSize: 900n,
          oldRoot: at800,
          newRoot: head.root,
          proof,
        }),
      ).toBeUndefined();
      expect((await reader.inclusionProof(850n)).length).toBeGreaterThan(0);
      // And the log goes on.
      await store.commit({ records: [], decisions: [decisionAt(BigInt(n), n, ev)] });
      await integrateAll(store, signing, { issued: () => 10_000n });
      expect((await store.logHead())?.size).toBe(901n);
    });
  });
}

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
