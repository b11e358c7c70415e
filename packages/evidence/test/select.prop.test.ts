import { compareBytes, type HopRecordFields, STATUS } from '@wai-steering/wire';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type EvidenceRecord,
  type EvidenceStore,
  MemoryEvidenceStore,
  selectEvidence,
  tallyPathway,
  windowAt,
} from '../src/index.js';
import { ev, key, policyOf, rec } from './helpers/fixtures.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 200);

class ListStore implements EvidenceStore {
  constructor(readonly list: readonly EvidenceRecord[]) {}
  recordsOfHop(hop: Uint8Array): EvidenceRecord[] {
    return this.list.filter((e) => compareBytes(e.record.hop, hop) === 0);
  }
}

/** A policy shape: per pathway, its hops' places (at least one edge). */
const shapeArb = fc.array(
  fc
    .array(fc.constantFrom(1, 2), { minLength: 1, maxLength: 4 })
    .map((places) => (places.includes(1) ? places : [...places.slice(1), 1])),
  { minLength: 1, maxLength: 4 },
);

/** Independent check: is b reachable from a by consecutive spans (forward breadth-first)? */
function tiles(spans: readonly { start: bigint; end: bigint }[], a: bigint, b: bigint): boolean {
  if (a >= b) return false;
  const seen = new Set<bigint>([a]);
  let frontier = [a];
  while (frontier.length > 0) {
    const next: bigint[] = [];
    for (const at of frontier) {
      for (const s of spans) {
        if (s.start === at && s.end > s.start && s.end <= b && !seen.has(s.end)) {
          seen.add(s.end);
          next.push(s.end);
        }
      }
    }
    frontier = next;
  }
  return seen.has(b);
}

/** Named records are grouped by hop in the pathway's hop order, each hop's in ascending start. */
function inSection52Order(
  hopKeys: readonly Uint8Array[],
  named: readonly EvidenceRecord[],
): boolean {
  let hopIndex = 0;
  let last: bigint | undefined;
  for (const n of named) {
    const j = hopKeys.findIndex((k) => compareBytes(k, n.record.hop) === 0);
    if (j < hopIndex) return false;
    if (j > hopIndex) {
      hopIndex = j;
      last = undefined;
    }
    if (last !== undefined && n.record.start <= last) return false;
    last = n.record.start;
  }
  return true;
}

describe('selectEvidence properties', () => {
  it('a store holding a record for every hop and period never yields stale evidence', () => {
    fc.assert(
      fc.property(
        shapeArb,
        fc.bigInt({ min: 1n, max: 1000n }),
        fc.integer({ min: 1, max: 12 }),
        fc.bigInt({ min: 0n, max: 3000n }),
        fc.integer({ min: 1, max: 40 }),
        fc.array(
          fc.record({
            hop: fc.nat(),
            start: fc.nat({ max: 60 }),
            len: fc.integer({ min: 1, max: 8 }),
            shift: fc.bigInt({ min: 0n, max: 999n }),
            cls: fc.constantFrom(0, 2, 3, 4, 5),
          }),
          { maxLength: 30 },
        ),
        (shape, P, n, L, periodsAfter, noise) => {
          const policy = policyOf(
            shape.map((places) => ({ places })),
            { period_us: P, window_us: P * BigInt(n), lag_us: L },
          );
          const t = L + P * BigInt(periodsAfter) + (P > 1n ? P - 1n : 0n);
          const window = windowAt(policy, t);
          const keys = policy.pathways.flatMap((p) => p.hops.map((h) => h.key));
          const records: HopRecordFields[] = [];
          const last = Number(window.b / P) + 2;
          for (const hop of keys) {
            for (let k = 0; k < last; k++) {
              records.push(rec({ hop, start: BigInt(k) * P, end: BigInt(k + 1) * P }));
            }
          }
          // Noise: overlapping spans, spans not cut on the period, other classes, duplicates.
          for (const x of noise) {
            const hop = keys[x.hop % keys.length]!;
            const start = BigInt(x.start) * P + (x.shift % P);
            const end = start + BigInt(x.len) * P;
            records.push(rec({ hop, start, end, cls: x.cls, joules: x.cls === 0 ? 0n : 5n }));
          }
          records.push(...records.slice(0, 3)); // duplicates
          const store = new MemoryEvidenceStore();
          for (const r of records) store.add(r, ev(r).digest);
          const e = selectEvidence(policy, window, store);
          const all = new Set<string>();
          e.pathways.forEach((pe, i) => {
            expect(pe.status).not.toBe(STATUS.stale);
            const tally = tallyPathway(
              policy,
              i,
              pe.named.map((x) => x.record),
              window,
            );
            expect(tally.covered.every((c) => c)).toBe(true);
            expect(
              inSection52Order(
                policy.pathways[i]!.hops.map((h) => h.key),
                pe.named,
              ),
            ).toBe(true);
            for (const x of pe.named) {
              const d = Buffer.from(x.digest).toString('hex');
              expect(all.has(d)).toBe(false);
              all.add(d);
            }
          });
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('stale exactly when some hop has no tiling (an independent forward search), and the choice does not depend on the store order', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3 }),
        fc.array(
          fc.record({
            hop: fc.nat({ max: 2 }),
            start: fc.nat({ max: 8 }),
            len: fc.integer({ min: 1, max: 4 }),
            joules: fc.bigInt({ min: 1n, max: 100n }),
          }),
          { maxLength: 25 },
        ),
        fc.integer({ min: 1, max: 4 }),
        fc.nat({ max: 4 }),
        fc.func(fc.integer()),
        (hops, spans, n, aPeriods, shuffleKey) => {
          const P = 10n;
          const policy = policyOf([{ places: [1, 2, 2].slice(0, hops) }], {
            period_us: P,
            window_us: P * BigInt(n),
            lag_us: 0n,
          });
          const window = { a: BigInt(aPeriods) * P, b: BigInt(aPeriods + n) * P };
          const list = spans.map((s) =>
            ev(
              rec({
                hop: key(s.hop % hops),
                start: BigInt(s.start) * 5n,
                end: BigInt(s.start + s.len) * 5n,
                joules: s.joules,
              }),
            ),
          );
          const e = selectEvidence(policy, window, new ListStore(list));
          const expectStale = policy.pathways[0]!.hops.some(
            (h) =>
              !tiles(
                list.filter((x) => compareBytes(x.record.hop, h.key) === 0).map((x) => x.record),
                window.a,
                window.b,
              ),
          );
          expect(e.pathways[0]!.status === STATUS.stale).toBe(expectStale);
          const shuffled = list
            .map((x, i) => ({ x, k: shuffleKey(i) }))
            .sort((p, q) => p.k - q.k)
            .map((p) => p.x);
          const e2 = selectEvidence(policy, window, new ListStore(shuffled));
          expect(e2.pathways[0]!.named.map((x) => x.digest)).toEqual(
            e.pathways[0]!.named.map((x) => x.digest),
          );
        },
      ),
      { numRuns: RUNS * 2 },
    );
  });
});
