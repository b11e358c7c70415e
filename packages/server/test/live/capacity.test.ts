import { toHex } from '@wai-steering/wire';
import { beforeAll, describe, expect, it } from 'vitest';
import { LiveCapacity } from '../../src/live/capacity.js';
import type { CapacityReport } from '../../src/live/report.js';
import { type LiveWorld, liveWorld } from './world.js';

const NOW = 1_800_000_000_000_000n;
const P = 2_000_000n;

describe('LiveCapacity', () => {
  let w: LiveWorld;
  beforeAll(() => {
    w = liveWorld();
  });
  const report = (hop: number, over: Partial<CapacityReport> = {}): CapacityReport => ({
    pathway: hop < 2 ? 0 : 1,
    hop: toHex(w.hops[hop]!.publicKey),
    gas: 100,
    computingMs: null,
    networkMs: null,
    t: NOW,
    expires: NOW + 10_000_000n,
    windowUs: 1_000_000n,
    ...over,
  });
  const live = () =>
    new LiveCapacity(w.fields, {
      pathways: new Set([0, 1]),
      capacityThresholdPpm: 100_000,
      latencyThresholdMs: 10,
    });

  it('keeps the template values of a pathway never reported', () => {
    const l = live();
    expect(l.values(NOW).map((v) => [v.capacity, v.latency_ms, v.source])).toEqual([
      [500, 40, 'template'],
      [300, 40, 'template'],
    ]);
    expect(l.next(w.policy, NOW, w.steering.publicKey)).toBeUndefined();
  });

  it('states the fresh GAS, clamped to the template, and ages an expired report out to 0', () => {
    const l = live();
    expect(l.offer(report(2, { gas: 120 }))).toBe('taken');
    expect(l.offer(report(0, { gas: 9_000 }))).toBe('taken');
    const v = l.values(NOW + 1n);
    expect(v[0]!.capacity).toBe(500); // clamped to the template's
    expect(v[1]).toMatchObject({ capacity: 120, source: 'reports', ageUs: 1n });
    // Past the expiry: GAS 0 (CATS's age-out), not the template's value.
    const later = l.values(NOW + 10_000_000n);
    expect(later[1]).toMatchObject({ capacity: 0, source: 'expired' });
  });

  it('states computing + network as the latency, the largest over fresh edge hops', () => {
    const l = live();
    l.offer(report(0, { computingMs: 20, networkMs: 30 }));
    expect(l.values(NOW)[0]!.latency_ms).toBe(50);
  });

  it('ignores a report no newer than the one held (replay or overtaken)', () => {
    const l = live();
    expect(l.offer(report(2, { gas: 50 }))).toBe('taken');
    expect(l.offer(report(2, { gas: 70 }))).toBe('older');
    expect(l.offer(report(2, { gas: 70, t: NOW - 1n }))).toBe('older');
    expect(l.values(NOW)[1]!.capacity).toBe(50);
  });

  it('rotates past the threshold, at most once per period', () => {
    const l = live();
    l.offer(report(2, { gas: 280 })); // 300 → 280: 6.7%, within 10%
    expect(l.next(w.policy, NOW, w.steering.publicKey)).toBeUndefined();
    l.offer(report(2, { gas: 200, t: NOW + 1n })); // 300 → 200: past it
    const next = l.next(w.policy, NOW + 2n, w.steering.publicKey);
    expect(next?.pathways.map((p) => p.capacity)).toEqual([500, 200]);
    expect(next?.signer).toEqual(w.steering.publicKey);
    // Everything else is the template's.
    expect({ ...next, pathways: undefined }).toEqual({ ...w.fields, pathways: undefined });
    // A flood of reports in the same period signs nothing more.
    for (let i = 0; i < 100; i++) {
      l.offer(report(2, { gas: i, t: NOW + 10n + BigInt(i) }));
      const p =
        next === undefined ? undefined : l.next(next, NOW + 100n + BigInt(i), w.steering.publicKey);
      expect(p).toBeUndefined();
    }
    // The next period may.
    const base = (NOW / P + 1n) * P;
    expect(l.next(next!, base, w.steering.publicKey)?.pathways[1]?.capacity).toBe(99);
  });

  it('rotates when a capacity crosses 0 or a latency crosses the ceiling, whatever the thresholds', () => {
    const l = new LiveCapacity(w.fields, {
      pathways: new Set([0, 1]),
      capacityThresholdPpm: 1_000_000,
      latencyThresholdMs: 1_000,
    });
    l.offer(report(0, { computingMs: 60, networkMs: 45 })); // 105 ms > the 100 ms ceiling
    expect(l.next(w.policy, NOW, w.steering.publicKey)?.pathways[0]?.latency_ms).toBe(105);
    const l2 = new LiveCapacity(w.fields, {
      pathways: new Set([1]),
      capacityThresholdPpm: 1_000_000,
      latencyThresholdMs: 1_000,
    });
    l2.offer(report(2, { gas: 0 }));
    expect(l2.next(w.policy, NOW, w.steering.publicKey)?.pathways[1]?.capacity).toBe(0);
  });

  it('keeps a pathway not configured live at its template values, reports or not', () => {
    const l = new LiveCapacity(w.fields, {
      pathways: new Set([0]),
      capacityThresholdPpm: 0,
      latencyThresholdMs: 0,
    });
    l.offer(report(2, { gas: 1 }));
    expect(l.values(NOW)[1]).toMatchObject({ capacity: 300, source: 'template' });
  });

  it('keeps the reports of pathways whose ID remains when the template changes', () => {
    const l = live();
    l.offer(report(2, { gas: 42 }));
    l.setTemplate({ ...w.fields, pathways: [w.fields.pathways[1]!, w.fields.pathways[0]!] });
    expect(l.values(NOW).map((v) => v.capacity)).toEqual([42, 500]);
  });

  it('keeps which pathways take live values by ID when the template reorders them', () => {
    const l = new LiveCapacity(w.fields, {
      pathways: new Set([1]), // cdn-b only
      capacityThresholdPpm: 0,
      latencyThresholdMs: 0,
    });
    l.setTemplate({ ...w.fields, pathways: [w.fields.pathways[1]!, w.fields.pathways[0]!] });
    l.offer(report(2, { pathway: 0, gas: 42 })); // cdn-b, now first
    l.offer(report(0, { pathway: 1, gas: 7 })); // cdn-a, now second: not live
    expect(l.values(NOW).map((v) => [v.capacity, v.source])).toEqual([
      [42, 'reports'],
      [500, 'template'],
    ]);
  });
});
