// Retention counts back from the newest decision and record kept, never from the clock alone, and
// keeps a record a current window may name; a failing store raises `prune` in health, once.
import { describe, expect, it } from 'vitest';
import { Retention } from '../../src/engine/retention.js';
import { Health } from '../../src/health.js';
import { Metrics } from '../../src/metrics.js';
import type { SteeringStore } from '../../src/store/store.js';

const S = 1_000_000n;

/** A store that records what it is asked to prune (or fails). */
function pruning(fail = false) {
  const calls: [bigint, bigint][] = [];
  const store = {
    prune: async (records: bigint, decisions: bigint) => {
      if (fail) throw Object.assign(new Error('disk full\nstack'), { code: 'SQLITE_FULL' });
      calls.push([records, decisions]);
      return { records: 1, decisions: 2, sets: 3 };
    },
  } as unknown as SteeringStore;
  return { store, calls };
}

describe('Retention', () => {
  it('counts back from the newest kept, or from now when nothing newer is kept', async () => {
    const { store, calls } = pruning();
    const r = new Retention(store, new Health({ log: () => {} }), new Metrics(), {
      decision: 1000n * S,
      record: 900n * S,
    });
    // The clock far ahead of what is kept: counted from the newest kept, not from the clock.
    expect(await r.prune(5000n * S, 4000n * S, 60_000, 120_000)).toEqual({
      records: 1,
      decisions: 2,
      sets: 3,
    });
    expect(calls.at(-1)).toEqual([840n * S, 880n * S]);
    r.decided(2000n * S);
    r.recorded(3000n * S, 1500n * S); // ends ahead of the clock: counted at the clock
    await r.prune(5000n * S, 4000n * S, 60_000, 120_000);
    expect(calls.at(-1)).toEqual([1440n * S, 1880n * S]);
    // A record the current window may name stays: never past the window's start.
    await r.prune(5000n * S, 100n * S, 60_000, 120_000);
    expect(calls.at(-1)).toEqual([100n * S, 1880n * S]);
    // Nothing kept yet: counted from now.
    const fresh = pruning();
    await new Retention(fresh.store, new Health({ log: () => {} }), new Metrics()).prune(
      500n * S,
      500n * S,
      10_000,
      20_000,
    );
    expect(fresh.calls).toEqual([[490n * S, 480n * S]]);
  });

  it('raises prune in health once, counts each failure, and prunes nothing', async () => {
    const lines: string[] = [];
    const health = new Health({ log: (l) => lines.push(l) });
    const metrics = new Metrics();
    const r = new Retention(pruning(true).store, health, metrics);
    expect(await r.prune(S, S, 1, 1)).toEqual({ records: 0, decisions: 0, sets: 0 });
    await r.prune(S, S, 1, 1);
    expect(health.has('prune')).toBe(true);
    expect(lines).toEqual([
      'wai-steering: degraded (prune): pruning fails: SQLITE_FULL: disk full',
    ]);
    expect(metrics.storeErrors.get({ op: 'prune' })).toBe(2);
  });
});
