import { describe, expect, it } from 'vitest';
import {
  EvidenceCache,
  type EvidenceRecord,
  type EvidenceStore,
  MemoryEvidenceStore,
  type Window,
} from '../src/index.js';
import { ev, key, periods, policyOf } from './helpers/fixtures.js';

const P = 1_000n;
const L = 250n;
const policy = policyOf([{ places: [1] }], { period_us: P, window_us: 2n * P, lag_us: L });

class CountingStore implements EvidenceStore {
  calls = 0;
  readonly inner = new MemoryEvidenceStore();
  recordsOfHop(hop: Uint8Array, w: Window): EvidenceRecord[] {
    this.calls++;
    return this.inner.recordsOfHop(hop, w);
  }
}

describe('EvidenceCache', () => {
  it('recomputes only when the window moves', () => {
    const store = new CountingStore();
    for (const r of periods(key(0), P, 0, 10)) store.inner.add(r, ev(r).digest);
    const cache = new EvidenceCache(policy, store);
    const e1 = cache.at(3n * P + L); // window [P, 3P)
    expect(e1.window).toEqual({ a: P, b: 3n * P });
    expect(store.calls).toBe(1);
    expect(cache.at(4n * P + L - 1n)).toBe(e1); // same window
    expect(cache.at(3n * P + L + 17n)).toBe(e1);
    expect(store.calls).toBe(1);
    const e2 = cache.at(4n * P + L); // window [2P, 4P)
    expect(e2).not.toBe(e1);
    expect(e2.window).toEqual({ a: 2n * P, b: 4n * P });
    expect(store.calls).toBe(2);
    expect(cache.at(3n * P + L).window).toEqual({ a: P, b: 3n * P }); // back: another window
    expect(store.calls).toBe(3);
  });

  it('every t below L + P shares the empty window', () => {
    const store = new CountingStore();
    const cache = new EvidenceCache(policy, store);
    const e = cache.at(0n);
    expect(e.window).toEqual({ a: 0n, b: 0n });
    expect(cache.at(L + P - 1n)).toBe(e);
    expect(store.calls).toBe(1);
  });

  it('records added between moves are read at the next move, or after invalidate()', () => {
    const store = new CountingStore();
    const cache = new EvidenceCache(policy, store);
    const t = 3n * P + L;
    expect(cache.at(t).pathways[0]!.status).toBe(3);
    for (const r of periods(key(0), P, 0, 4)) store.inner.add(r, ev(r).digest);
    expect(cache.at(t + 1n).pathways[0]!.status).toBe(3); // cached
    cache.invalidate();
    expect(cache.at(t + 1n).pathways[0]!.status).toBe(0);
    expect(cache.at(t + P).pathways[0]!.status).toBe(0); // the next move reads them too
  });
});
