// The account streamed from the store (`energy/stream.ts`) against the energy package's account
// of the same records and decisions given at once (`energyAccount`, which sorts them itself):
// the same canonical JSON for any records (crossing, duplicated, unmetered, longer than the
// pages, of other hops), any pages, any span.
import { createHash } from 'node:crypto';
import { energyAccount, writeAccount } from '@wai-steering/energy';
import {
  type DecisionFields,
  digestOf,
  encodeHopRecord,
  encodePolicy,
  type HopRecordFields,
  type Policy,
  type PolicyFields,
  readDecision,
  readHopRecord,
  signDecision,
  unwrap,
} from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { streamAccount } from '../../src/energy/stream.js';
import { SqliteStore } from '../../src/store/sqlite/index.js';
import type { StoredDecision, StoredRecord } from '../../src/store/store.js';

const P = 1000n;
const ROOM = new Uint8Array(32).fill(0xaa);
const key = (n: number) => new Uint8Array(32).fill(n);
const secret = new Uint8Array(32).fill(3);

function policyOf(): Policy {
  const pathway = (id: string, hops: { key: Uint8Array; place: number }[]) => ({
    id,
    base: 255,
    host: '',
    params: [],
    top_tier: 0,
    latency_ms: 40,
    capacity: 0xffffffff,
    min_share_ppm: 0,
    hops,
  });
  const fields: PolicyFields = {
    room: ROOM,
    signer: nodeBackend.publicKey(secret),
    period_us: P,
    window_us: 3n * P,
    lag_us: P / 2n,
    basis: 1,
    floor: 0,
    latency_ceiling_ms: 250,
    min_buffer_ms: 4000,
    hysteresis_ppm: 50_000,
    ttl_s: 10,
    min_ttl_s: 4,
    flags: 0,
    initial: 0,
    tiers: [4_000_000n],
    server_uri: 'https://steer.example/steer',
    reload_uri: 'https://steer.example/steer',
    decision_uri: 'https://steer.example/decisions/',
    pathways: [
      pathway('a', [
        { key: key(1), place: 1 },
        { key: key(2), place: 2 },
      ]),
      pathway('b', [{ key: key(3), place: 1 }]),
    ],
  };
  return { ...fields, body: encodePolicy(fields), sig: new Uint8Array(64) };
}

const policy = policyOf();
const policyDigest = digestOf(policy);

function stored(fields: HopRecordFields): StoredRecord {
  const body = encodeHopRecord(fields);
  const bytes = new Uint8Array(body.length + 64);
  bytes.set(body);
  const digest = new Uint8Array(createHash('sha256').update(body).digest());
  return { digest, bytes, hop: fields.hop, start: fields.start, end: fields.end };
}

const recordArb = fc
  .record({
    hop: fc.constantFrom(1, 2, 3, 9), // 9: a hop of no pathway
    k: fc.nat(30),
    shape: fc.constantFrom('period', 'period', 'period', 'half', 'crossing', 'long'),
    cls: fc.constantFrom(4, 4, 4, 2, 0),
    joules: fc.bigInt({ min: 0n, max: 10n ** 12n }),
    bytes: fc.bigInt({ min: 0n, max: 10n ** 10n }),
    sessions: fc.nat(1000),
  })
  .map((r): HopRecordFields => {
    const start = BigInt(r.k) * P + (r.shape === 'crossing' ? P / 2n : 0n);
    const length = r.shape === 'half' ? P / 2n : r.shape === 'long' ? 7n * P : P;
    return {
      room: ROOM,
      hop: key(r.hop),
      start,
      end: start + length,
      sessions: r.sessions,
      class: r.cls,
      joules: r.cls === 0 ? 0n : r.joules,
      subscriber_us: Array(8).fill(0n),
      tracks: [{ track: 1, kind: 1, direction: 2, bytes: r.bytes }],
    };
  });

const decisionArb = fc.record({
  t: fc.bigInt({ min: 0n, max: 32n * P }),
  session: fc.nat(5),
  first: fc.nat(1),
  ttl: fc.integer({ min: 1, max: 3 }),
});

function decisionOf(d: { t: bigint; session: number; first: number; ttl: number }, n: number) {
  const pathway = (evidence: Uint8Array[]) => ({
    load: 0,
    limits: 0,
    status: 3,
    class: 0,
    joules: 0n,
    delivery: 0n,
    evidence,
  });
  const fields: DecisionFields = {
    room: ROOM,
    signer: nodeBackend.publicKey(secret),
    policy: policyDigest,
    t: d.t,
    session: new Uint8Array(16).fill(d.session),
    draw: n,
    protocol: 1,
    report: { present: 0, pathway: 0, throughput: 0n, buffer: 0n },
    pathways: [pathway([]), pathway([])],
    ttl: d.ttl,
    reason: 1,
    priority: d.first === 0 ? [0, 1] : [1, 0],
  };
  const bytes = signDecision(fields, secret, { backend: nodeBackend, check: false });
  const digest = new Uint8Array(
    createHash('sha256')
      .update(bytes.subarray(0, bytes.length - 64))
      .digest(),
  );
  return { bytes, digest };
}

const stores: SqliteStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
});

describe('streamAccount', () => {
  it('states the account energyAccount states of the same records and decisions', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(recordArb, { maxLength: 120 }),
        fc.array(decisionArb, { maxLength: 30 }),
        fc.nat(10),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 5 }),
        async (records, ds, a, n, pageRecords, pageDecisions) => {
          const store = new SqliteStore(':memory:');
          stores.push(store);
          const rs = records.map(stored);
          // Some records twice, in another commit.
          await store.commit({ records: rs, decisions: [] });
          await store.commit({ records: rs.slice(0, 5), decisions: [] });
          const sorted = [...ds].sort((x, y) => (x.t < y.t ? -1 : x.t > y.t ? 1 : 0));
          const decisions = sorted.map(decisionOf);
          await store.commit({ records: [], decisions: decisions as StoredDecision[] });
          const from = BigInt(a) * P;
          const to = from + BigInt(n) * P;
          const policies = [{ at: 0n, policy }];
          let pauses = 0;
          const streamed = await streamAccount(store, {
            policies,
            from,
            to,
            graceS: 1,
            longestRecordUs: policy.window_us,
            pageRecords,
            pageDecisions,
            pause: async () => {
              pauses++;
            },
          });
          const inSpan = decisions
            .map((d) => unwrap(readDecision(d.bytes)))
            .filter((d) => d.t >= from && d.t < to);
          const given = energyAccount({
            policies,
            from,
            to,
            graceS: 1,
            records: rs.map((r) => ({ record: unwrap(readHopRecord(r.bytes)), digest: r.digest })),
            decisions: inSpan,
          });
          expect(writeAccount(streamed)).toBe(writeAccount(given));
          expect(pauses).toBeGreaterThan(0);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('reads a record that crosses the span’s end when the span is whole pages', async () => {
    const store = new SqliteStore(':memory:');
    stores.push(store);
    const rec = (hop: number, start: bigint, end: bigint): HopRecordFields => ({
      room: ROOM,
      hop: key(hop),
      start,
      end,
      sessions: 1,
      class: 4,
      joules: 5n,
      subscriber_us: Array(8).fill(0n),
      tracks: [{ track: 1, kind: 1, direction: 2, bytes: 7n }],
    });
    const recs: HopRecordFields[] = [];
    for (let k = 0n; k < 9n; k++) recs.push(rec(3, k * P, (k + 1n) * P));
    // Pathway b's last period of [0, 9P) is 8: another record of its hop crosses 9P from it.
    recs.push(rec(3, 8n * P + P / 2n, 9n * P + P / 2n));
    await store.commit({ records: recs.map(stored), decisions: [] });
    for (const pageRecords of [1, 3, 9, 27]) {
      const account = await streamAccount(store, {
        policies: [{ at: 0n, policy }],
        from: 0n,
        to: 9n * P,
        graceS: 1,
        longestRecordUs: 3n * P,
        pageRecords,
      });
      // Periods 0 to 7 usable; 8 not (a record crosses its bounds, item 1b).
      expect(account.pathways[1]!.periods).toBe(8);
      expect(account.pathways[1]!.periods_unusable).toBe(1);
    }
  });

  it('refuses a span before reading the store', async () => {
    let reads = 0;
    const source = {
      recordsOfHops: async () => {
        reads++;
        return [];
      },
      listDecisions: async () => {
        reads++;
        return { decisions: [], next: null };
      },
    };
    const o = { policies: [{ at: 0n, policy }], graceS: 1, longestRecordUs: 3n * P };
    await expect(streamAccount(source, { ...o, from: 10n, to: 2n * P })).rejects.toMatchObject({
      name: 'EnergySpanError',
      problem: 'not_aligned',
    });
    await expect(streamAccount(source, { ...o, from: P, to: P })).rejects.toMatchObject({
      problem: 'empty',
    });
    expect(reads).toBe(0);
  });

  it('reads pages of about the records asked for, and more pages for a longer record', async () => {
    const store = new SqliteStore(':memory:');
    stores.push(store);
    const recs: HopRecordFields[] = [];
    for (let k = 0n; k < 40n; k++) {
      for (const h of [1, 2, 3]) {
        recs.push({
          room: ROOM,
          hop: key(h),
          start: k * P,
          end: (k + 1n) * P,
          sessions: 1,
          class: 4,
          joules: 5n,
          subscriber_us: Array(8).fill(0n),
          tracks: [{ track: 1, kind: 1, direction: 2, bytes: 7n }],
        });
      }
    }
    // One record of 20 periods: longer than the pages the account first reads.
    recs.push({ ...recs[0]!, start: 10n * P, end: 30n * P, joules: 1n });
    await store.commit({ records: recs.map(stored), decisions: [] });
    const pages: bigint[] = [];
    const source = {
      recordsOfHops: (hops: readonly Uint8Array[], after: bigint, through: bigint) => {
        pages.push(through - after);
        return store.recordsOfHops(hops, after, through);
      },
      listDecisions: store.listDecisions.bind(store),
    };
    const account = await streamAccount(source, {
      policies: [{ at: 0n, policy }],
      from: 0n,
      to: 40n * P,
      graceS: 1,
      longestRecordUs: 3n * P,
      pageRecords: 9, // 3 periods of 3 hops
    });
    // Pages of 3 periods first, then, the long record found, of its 20 periods.
    expect(pages[0]).toBe(3n * P);
    expect(pages.at(-1)).toBe(20n * P);
    // The long record makes periods 10 to 29 unusable for pathway a.
    expect(account.pathways[0]!.periods).toBe(20);
    expect(account.pathways[1]!.periods).toBe(40);
  });
});
