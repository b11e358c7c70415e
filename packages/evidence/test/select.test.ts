import {
  CLASS,
  compareBytes,
  digestOf,
  type HopRecordFields,
  nobleBackend,
  readHopRecord,
  STATUS,
  signHopRecord,
  unwrap,
} from '@wai-steering/wire';
import { describe, expect, it } from 'vitest';
import {
  type EvidenceRecord,
  type EvidenceStore,
  MemoryEvidenceStore,
  selectEvidence,
  type Window,
} from '../src/index.js';
import { tileHop } from '../src/select.js';
import { ev, key, periods, policyOf, rec } from './helpers/fixtures.js';

const P = 1_000_000n;
const W: Window = { a: 2n * P, b: 5n * P };

/** A store over a plain list: returns every record of the hop, in the list's order. */
class ListStore implements EvidenceStore {
  constructor(readonly list: EvidenceRecord[]) {}
  recordsOfHop(hop: Uint8Array): EvidenceRecord[] {
    return this.list.filter((e) => compareBytes(e.record.hop, hop) === 0);
  }
}

function memory(records: HopRecordFields[]): MemoryEvidenceStore {
  const s = new MemoryEvidenceStore();
  for (const r of records) s.add(r, ev(r).digest);
  return s;
}

const spans = (named: readonly EvidenceRecord[]) =>
  named.map((n) => [n.record.hop[1], n.record.start / P, n.record.end / P].map(Number));

describe('selectEvidence (§5.2)', () => {
  const policy = policyOf([{ places: [2, 1] }, { places: [1] }], {
    period_us: P,
    window_us: 3n * P,
  });

  it('every hop × period held: figures, named grouped by hop in hop order, ascending start', () => {
    const records = [
      ...periods(key(1), P, 0, 8), // added before key(0): order comes from the policy
      ...periods(key(0), P, 0, 8).reverse(), // added out of order
      ...periods(key(16), P, 0, 8),
    ];
    const e = selectEvidence(policy, W, memory(records));
    expect(e.window).toEqual(W);
    expect(e.pathways.map((p) => p.status)).toEqual([STATUS.figure, STATUS.figure]);
    expect(spans(e.pathways[0]!.named)).toEqual([
      [0, 2, 3],
      [0, 3, 4],
      [0, 4, 5],
      [1, 2, 3],
      [1, 3, 4],
      [1, 4, 5],
    ]);
    expect(e.pathways[1]!.joules).toBe(3_000n);
  });

  it("a hop with no tiling: stale; the covered hop's tiling and the uncovered hop's records are named", () => {
    const records = [
      ...periods(key(0), P, 2, 5),
      ...periods(key(1), P, 2, 3),
      ...periods(key(1), P, 4, 5),
    ];
    const e = selectEvidence(policy, W, memory(records));
    expect(e.pathways[0]!.status).toBe(STATUS.stale);
    expect(spans(e.pathways[0]!.named)).toEqual([
      [0, 2, 3],
      [0, 3, 4],
      [0, 4, 5],
      [1, 2, 3],
      [1, 4, 5],
    ]);
    expect(e.pathways[0]).toMatchObject({ class: 0, joules: 0n, delivery: 0n });
    expect(e.pathways[1]!).toMatchObject({ status: STATUS.stale, named: [] });
  });

  it('overlapping spans: a chain that tiles is found', () => {
    const odd = [
      rec({ hop: key(16), start: 2n * P, end: 3n * P }),
      rec({ hop: key(16), start: 2n * P + 500n, end: 4n * P }), // overlaps, dead start
      rec({ hop: key(16), start: 3n * P, end: 5n * P }),
    ];
    const e = selectEvidence(policy, W, memory(odd));
    expect(e.pathways[1]!.status).toBe(STATUS.figure);
    expect(e.pathways[1]!.named.map((n) => n.record)).toEqual([odd[0], odd[2]]);
  });

  it('not cut on the period but tiling: covered; the longest record is preferred', () => {
    const odd = [rec({ hop: key(16), start: 2n * P, end: 5n * P }), ...periods(key(16), P, 2, 5)];
    const e = selectEvidence(policy, W, memory(odd));
    expect(e.pathways[1]!.named.map((n) => n.record)).toEqual([odd[0]]);
  });

  it('the largest end is taken only when it still reaches b', () => {
    const odd = [
      rec({ hop: key(16), start: 2n * P, end: 4n * P }), // 4P reaches nothing
      rec({ hop: key(16), start: 2n * P, end: 3n * P }),
      rec({ hop: key(16), start: 3n * P, end: 5n * P }),
    ];
    const e = selectEvidence(policy, W, memory(odd));
    expect(e.pathways[1]!.named.map((n) => n.record)).toEqual([odd[1], odd[2]]);
  });

  it('short of b: stale, naming the records read', () => {
    const records = periods(key(16), P, 2, 4);
    const e = selectEvidence(policy, W, memory(records));
    expect(e.pathways[1]!.status).toBe(STATUS.stale);
    expect(e.pathways[1]!.named.map((n) => n.record)).toEqual(records);
  });

  it('an untiled hop names one record per start, the longest', () => {
    const short = rec({ hop: key(16), start: 2n * P, end: 3n * P });
    const long = rec({ hop: key(16), start: 2n * P, end: 4n * P });
    const e = selectEvidence(policy, W, memory([short, long]));
    expect(e.pathways[1]!.status).toBe(STATUS.stale);
    expect(e.pathways[1]!.named.map((n) => n.record)).toEqual([long]);
  });

  it('duplicates in the store are named once; the same span twice: smallest digest', () => {
    const list = periods(key(16), P, 2, 5).map(ev);
    const dup = new ListStore([...list, ...list, list[1]!]);
    const e = selectEvidence(policy, W, dup);
    expect(e.pathways[1]!.named).toEqual(list);
    const a = ev(rec({ hop: key(16), start: 2n * P, end: 5n * P, joules: 1n }));
    const b = ev(rec({ hop: key(16), start: 2n * P, end: 5n * P, joules: 2n }));
    const smaller = compareBytes(a.digest, b.digest) < 0 ? a : b;
    expect(selectEvidence(policy, W, new ListStore([a, b])).pathways[1]!.named).toEqual([smaller]);
    expect(selectEvidence(policy, W, new ListStore([b, a])).pathways[1]!.named).toEqual([smaller]);
  });

  it('records outside the window or of another hop that a store returns are skipped', () => {
    const sloppy: EvidenceStore = {
      recordsOfHop: () => [
        ...periods(key(16), P, 0, 8).map(ev),
        ev(rec({ hop: key(99), start: 2n * P, end: 5n * P })),
      ],
    };
    const e = selectEvidence(policy, W, sloppy);
    expect(spans(e.pathways[1]!.named)).toEqual([
      [16, 2, 3],
      [16, 3, 4],
      [16, 4, 5],
    ]);
  });

  it('an empty window (b = 0): every pathway stale, nothing named', () => {
    const e = selectEvidence(policy, { a: 0n, b: 0n }, memory(periods(key(16), P, 0, 3)));
    expect(e.pathways.map((p) => [p.status, p.named.length])).toEqual([
      [STATUS.stale, 0],
      [STATUS.stale, 0],
    ]);
  });

  it('unmetered, mixed and empty pathways name their records (their zeros are statable)', () => {
    const e = selectEvidence(
      policy,
      W,
      memory([
        ...periods(key(0), P, 2, 5, { cls: CLASS.unmetered }),
        ...periods(key(1), P, 2, 5),
        ...periods(key(16), P, 2, 5, { bytes: 0n }),
      ]),
    );
    expect(e.pathways.map((p) => [p.status, p.named.length])).toEqual([
      [STATUS.unmetered, 6],
      [STATUS.empty, 3],
    ]);
  });
});

describe('selectEvidence: what cannot be stated names nothing (§7.1, §7.2, C9)', () => {
  it('more than 255 records: none named, stale; control: 255 records give a figure', () => {
    const p255 = policyOf([{ places: [1] }], { period_us: 1n, window_us: 255n, lag_us: 0n });
    const p256 = policyOf([{ places: [1] }], { period_us: 1n, window_us: 256n, lag_us: 0n });
    const store = memory(periods(key(0), 1n, 0, 256));
    const e255 = selectEvidence(p255, { a: 1n, b: 256n }, store);
    expect(e255.pathways[0]!.status).toBe(STATUS.figure);
    expect(e255.pathways[0]!.named.length).toBe(255);
    const e256 = selectEvidence(p256, { a: 0n, b: 256n }, store);
    expect(e256.pathways[0]).toMatchObject({ status: STATUS.stale, named: [] });
  });

  it('a figure with J = 0: none named; control: J = 1', () => {
    const policy = policyOf([{ places: [1] }], { period_us: P, window_us: 3n * P });
    const zero = selectEvidence(policy, W, memory(periods(key(0), P, 2, 5, { joules: 0n })));
    expect(zero.pathways[0]).toMatchObject({ status: STATUS.stale, named: [], joules: 0n });
    const recs = periods(key(0), P, 2, 5, { joules: 0n });
    recs[2] = rec({ hop: key(0), start: 4n * P, end: 5n * P, joules: 1n });
    const one = selectEvidence(policy, W, memory(recs));
    expect(one.pathways[0]).toMatchObject({ status: STATUS.figure, joules: 1n });
  });

  it('J or D at 2^128 or above: none named; control: 2^128 − 1', () => {
    const policy = policyOf([{ places: [1] }], { period_us: P, window_us: P });
    const w = { a: 4n * P, b: 5n * P };
    const atLimit = (joules: bigint, bytes: bigint) =>
      selectEvidence(
        policy,
        w,
        memory([rec({ hop: key(0), start: 4n * P, end: 5n * P, joules, bytes })]),
      ).pathways[0]!;
    // A record's joules is a u128, so a single record stays below 2^128; two hops can pass it.
    expect(atLimit((1n << 128n) - 1n, 1n)).toMatchObject({ status: STATUS.figure });
    const two = policyOf([{ places: [1, 2] }], { period_us: P, window_us: P });
    const half = 1n << 127n;
    const over = selectEvidence(
      two,
      w,
      memory([
        rec({ hop: key(0), start: 4n * P, end: 5n * P, joules: half }),
        rec({ hop: key(1), start: 4n * P, end: 5n * P, joules: half }),
      ]),
    ).pathways[0]!;
    expect(over).toMatchObject({ status: STATUS.stale, named: [] });
    const under = selectEvidence(
      two,
      w,
      memory([
        rec({ hop: key(0), start: 4n * P, end: 5n * P, joules: half }),
        rec({ hop: key(1), start: 4n * P, end: 5n * P, joules: half - 1n }),
      ]),
    ).pathways[0]!;
    expect(under).toMatchObject({ status: STATUS.figure, joules: (1n << 128n) - 1n });
    // D: 2^64 − 1 bytes per track; enough tracks to pass 2^128 cannot fit one record (255
    // tracks), so D ≥ 2^128 needs more records than a pathway may name: covered by the count.
  });

  it('a digest already named for an earlier pathway (a store with wrong digests): none named', () => {
    const policy = policyOf([{ places: [1] }, { places: [1] }], {
      period_us: P,
      window_us: 3n * P,
    });
    const digest = new Uint8Array(32).fill(9);
    const bad: EvidenceStore = {
      recordsOfHop: (hop) => [{ record: rec({ hop, start: 2n * P, end: 5n * P }), digest }],
    };
    const e = selectEvidence(policy, W, bad);
    expect(e.pathways[0]!.status).toBe(STATUS.figure);
    expect(e.pathways[1]).toMatchObject({ status: STATUS.stale, named: [] });
  });
});

describe('tileHop', () => {
  it('finds no tiling of an empty window or from no record', () => {
    expect(tileHop([], W)).toBeUndefined();
    expect(tileHop(periods(key(0), P, 0, 1).map(ev), { a: 0n, b: 0n })).toBeUndefined();
  });
});

describe('selection from real signed records', () => {
  it('records signed by the hops, read back, their digests named', () => {
    const secret = (n: number) => new Uint8Array(32).fill(n);
    const hopKey = nobleBackend.publicKey(secret(3));
    const base = policyOf([{ places: [1] }], { period_us: P, window_us: 3n * P });
    const policy = {
      ...base,
      pathways: [{ ...base.pathways[0]!, hops: [{ key: hopKey, place: 1 }] }],
    };
    const store = new MemoryEvidenceStore();
    const digests: Uint8Array[] = [];
    for (const fields of periods(hopKey, P, 2, 5, { cls: CLASS.CalibratedInstrument })) {
      const read = unwrap(readHopRecord(signHopRecord(fields, secret(3))));
      const d = digestOf(read);
      digests.push(d);
      store.add(read, d);
    }
    const e = selectEvidence(policy, W, store);
    expect(e.pathways[0]).toMatchObject({ status: STATUS.figure, class: 5 });
    expect(e.pathways[0]!.named.map((n) => n.digest)).toEqual(digests);
  });
});

describe('MemoryEvidenceStore', () => {
  it('holds one record per digest; remove and prune', () => {
    const s = new MemoryEvidenceStore();
    const [r0, r1, r2] = periods(key(0), P, 0, 3);
    expect(s.add(r0!, ev(r0!).digest)).toBe(true);
    expect(s.add(r0!, ev(r0!).digest)).toBe(false);
    s.add(r2!, ev(r2!).digest);
    s.add(r1!, ev(r1!).digest);
    expect(s.size).toBe(3);
    expect(s.recordsOfHop(key(0), { a: 0n, b: 3n * P }).map((e) => e.record)).toEqual([r0, r1, r2]);
    expect(s.recordsOfHop(key(0), { a: P, b: 2n * P }).map((e) => e.record)).toEqual([r1]);
    expect(s.recordsOfHop(key(5), { a: 0n, b: 3n * P })).toEqual([]);
    expect(s.remove(ev(r1!).digest)).toBe(true);
    expect(s.remove(ev(r1!).digest)).toBe(false);
    expect(s.prune(2n * P)).toBe(1);
    expect(s.size).toBe(1);
    expect(s.recordsOfHop(key(0), { a: 0n, b: 3n * P }).map((e) => e.record)).toEqual([r2]);
    expect(s.prune(10n * P)).toBe(1);
    expect(s.size).toBe(0);
  });

  it('refuses a digest that is not 32 bytes (TypeError)', () => {
    const s = new MemoryEvidenceStore();
    expect(() => s.add(periods(key(0), P, 0, 1)[0]!, new Uint8Array(31))).toThrow(TypeError);
  });
});
