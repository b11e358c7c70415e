import { toHex } from '@wai-steering/wire';
import { beforeAll, describe, expect, it } from 'vitest';
import { LiveCapacity, type LoadAt } from '../../src/live/capacity.js';
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
  /** Loads stated at every second: none (0) unless given, per pathway ID. */
  const noLoad: LoadAt = () => 0;
  const live = (loadAt: LoadAt = noLoad) =>
    new LiveCapacity(
      w.fields,
      { pathways: new Set([0, 1]), capacityThresholdPpm: 100_000, latencyThresholdMs: 10 },
      loadAt,
    );

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
    expect(l.offer(report(2, { gas: 120 }), NOW)).toBe('taken');
    expect(l.offer(report(0, { gas: 9_000 }), NOW)).toBe('taken');
    const v = l.values(NOW + 1n);
    expect(v[0]!.capacity).toBe(500); // clamped to the template's
    expect(v[1]).toMatchObject({ capacity: 120, source: 'reports', ageUs: 1n });
    // Past the expiry: GAS 0 (CATS's age-out), not the template's value.
    const later = l.values(NOW + 10_000_000n);
    expect(later[1]).toMatchObject({ capacity: 0, source: 'expired' });
  });

  it('states computing + network as the latency, the largest over fresh edge hops', () => {
    const l = live();
    l.offer(report(0, { computingMs: 20, networkMs: 30 }), NOW);
    expect(l.values(NOW)[0]!.latency_ms).toBe(50);
  });

  it('ignores a report no newer than the one held (replay or overtaken)', () => {
    const l = live();
    expect(l.offer(report(2, { gas: 50 }), NOW)).toBe('taken');
    expect(l.offer(report(2, { gas: 70 }), NOW)).toBe('older');
    expect(l.offer(report(2, { gas: 70, t: NOW - 1n }), NOW)).toBe('older');
    expect(l.values(NOW)[1]!.capacity).toBe(50);
  });

  it('rotates past the threshold, at most once per period', () => {
    const l = live();
    l.offer(report(2, { gas: 280 }), NOW); // 300 → 280: 6.7%, within 10%
    expect(l.next(w.policy, NOW, w.steering.publicKey)).toBeUndefined();
    l.offer(report(2, { gas: 200, t: NOW + 1n }), NOW); // 300 → 200: past it
    const next = l.next(w.policy, NOW + 2n, w.steering.publicKey);
    expect(next?.pathways.map((p) => p.capacity)).toEqual([500, 200]);
    expect(next?.signer).toEqual(w.steering.publicKey);
    // Everything else is the template's.
    expect({ ...next, pathways: undefined }).toEqual({ ...w.fields, pathways: undefined });
    // A flood of reports in the same period signs nothing more.
    for (let i = 0; i < 100; i++) {
      l.offer(report(2, { gas: i, t: NOW + 10n + BigInt(i) }), NOW);
      const p =
        next === undefined ? undefined : l.next(next, NOW + 100n + BigInt(i), w.steering.publicKey);
      expect(p).toBeUndefined();
    }
    // The next period may.
    const base = (NOW / P + 1n) * P;
    expect(l.next(next!, base, w.steering.publicKey)?.pathways[1]?.capacity).toBe(99);
  });

  it('rotates when a capacity crosses 0 or a latency crosses the ceiling, whatever the thresholds', () => {
    const l = new LiveCapacity(
      w.fields,
      {
        pathways: new Set([0, 1]),
        capacityThresholdPpm: 1_000_000,
        latencyThresholdMs: 1_000,
      },
      noLoad,
    );
    l.offer(report(0, { computingMs: 60, networkMs: 45 }), NOW); // 105 ms > the 100 ms ceiling
    expect(l.next(w.policy, NOW, w.steering.publicKey)?.pathways[0]?.latency_ms).toBe(105);
    const l2 = new LiveCapacity(
      w.fields,
      {
        pathways: new Set([1]),
        capacityThresholdPpm: 1_000_000,
        latencyThresholdMs: 1_000,
      },
      noLoad,
    );
    l2.offer(report(2, { gas: 0 }), NOW);
    expect(l2.next(w.policy, NOW, w.steering.publicKey)?.pathways[1]?.capacity).toBe(0);
  });

  it('keeps a pathway not configured live at its template values, reports or not', () => {
    const l = new LiveCapacity(
      w.fields,
      {
        pathways: new Set([0]),
        capacityThresholdPpm: 0,
        latencyThresholdMs: 0,
      },
      noLoad,
    );
    l.offer(report(2, { gas: 1 }), NOW);
    expect(l.values(NOW)[1]).toMatchObject({ capacity: 300, source: 'template' });
  });

  it('keeps the reports of pathways whose ID remains when the template changes', () => {
    const l = live();
    l.offer(report(2, { gas: 42 }), NOW);
    l.setTemplate({ ...w.fields, pathways: [w.fields.pathways[1]!, w.fields.pathways[0]!] });
    expect(l.values(NOW).map((v) => v.capacity)).toEqual([42, 500]);
  });

  it('keeps which pathways take live values by ID when the template reorders them', () => {
    const l = new LiveCapacity(
      w.fields,
      {
        pathways: new Set([1]), // cdn-b only
        capacityThresholdPpm: 0,
        latencyThresholdMs: 0,
      },
      noLoad,
    );
    l.setTemplate({ ...w.fields, pathways: [w.fields.pathways[1]!, w.fields.pathways[0]!] });
    l.offer(report(2, { pathway: 0, gas: 42 }), NOW); // cdn-b, now first
    l.offer(report(0, { pathway: 1, gas: 7 }), NOW); // cdn-a, now second: not live
    expect(l.values(NOW).map((v) => [v.capacity, v.source])).toEqual([
      [42, 'reports'],
      [500, 'template'],
    ]);
  });

  // GAS (CATS §5.3.1) is what a site can still take: its slots less the sessions it serves. The
  // server's load counts those sessions already, so the capacity is the load plus the GAS.
  it("adds the sites' GAS to the load the server states at the report's t", () => {
    const S = NOW / 1_000_000n;
    const loads: LoadAt = (second, id) => (second === S && id === 'cdn-b' ? 7 : undefined);
    const l = live(loads);
    const slots = 20;
    const sessions = 7;
    expect(l.offer(report(2, { gas: slots - sessions }), NOW)).toBe('taken');
    expect(l.values(NOW)[1]).toMatchObject({ capacity: slots, source: 'reports', load: 7 });
    expect(l.next(w.policy, NOW, w.steering.publicKey)?.pathways[1]?.capacity).toBe(slots);
    // Clamped to the template's (300).
    const big = live(loads);
    big.offer(report(2, { gas: 1_000 }), NOW);
    expect(big.values(NOW)[1]!.capacity).toBe(300);
  });

  it("takes the load at the newest fresh report's t, and every fresh site's GAS", () => {
    const S = NOW / 1_000_000n;
    const byS = new Map([
      [S, 3],
      [S + 1n, 4],
    ]);
    const l = live((second, id) => (id === 'cdn-b' ? byS.get(second) : undefined));
    l.offer(report(2, { gas: 5, expires: NOW + 10_000_000n }), NOW + 1_000_000n);
    const t2 = NOW + 1_000_000n;
    const other = toHex(w.revoked.publicKey); // another edge hop of cdn-b
    l.offer(report(2, { hop: other, gas: 8, t: t2, expires: t2 + 2_000_000n }), t2);
    expect(l.values(t2)[1]).toMatchObject({ capacity: 4 + 5 + 8, load: 4 });
    // The second site ages out: GAS 0, and the load at the newest fresh report's t again.
    expect(l.values(t2 + 2_000_000n)[1]).toMatchObject({ capacity: 3 + 5, load: 3 });
  });

  it('puts a report dated ahead in effect when its second comes, the previous one until then', () => {
    const S = NOW / 1_000_000n;
    const l = live((second) => (second === S ? 2 : second === S + 2n ? 5 : undefined));
    l.offer(report(2, { gas: 10 }), NOW);
    const ahead = NOW + 2_000_000n;
    expect(l.offer(report(2, { gas: 30, t: ahead, expires: ahead + 5_000_000n }), NOW)).toBe(
      'taken',
    );
    expect(l.values(NOW + 1_000_000n)[1]).toMatchObject({ capacity: 12 });
    expect(l.values(ahead)[1]).toMatchObject({ capacity: 35, load: 5 });
    // A report dated ahead with none before it: nothing until its second.
    const fresh = live((second) => (second === S + 2n ? 1 : undefined));
    fresh.offer(report(2, { gas: 30, t: ahead, expires: ahead + 5_000_000n }), NOW);
    expect(fresh.values(NOW)[1]!.source).toBe('template');
    expect(fresh.values(ahead)[1]).toMatchObject({ capacity: 31, source: 'reports' });
  });

  it('refuses a report whose load it cannot state; one another instance took keeps what is in force', () => {
    const l = live(() => undefined);
    expect(l.offer(report(2, { gas: 10 }), NOW)).toBe('unknown_load');
    expect(l.offer(report(2, { gas: 10 }), NOW, true)).toBe('taken');
    expect(l.values(NOW)[1]).toMatchObject({ source: 'unknown', reports: 1 });
    // The values in force stand: nothing to sign, even at the thresholds of 0.
    const strict = new LiveCapacity(
      w.fields,
      { pathways: new Set([0, 1]), capacityThresholdPpm: 0, latencyThresholdMs: 0 },
      () => undefined,
    );
    strict.offer(report(2, { gas: 10 }), NOW, true);
    expect(strict.next(w.policy, NOW, w.steering.publicKey)).toBeUndefined();
  });
});
