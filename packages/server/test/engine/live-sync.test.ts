// Keeping the policy in force in step: an adoption reads the reports again only when a policy was
// adopted; a sync adopts, reads the reports and ticks, the tick's rotation winning; a store that
// fails is told once (`store_queries`) and cleared by the next sync that works.
import { describe, expect, it } from 'vitest';
import type { LiveIntake } from '../../src/engine/live-intake.js';
import { LiveSync } from '../../src/engine/live-sync.js';
import type { PolicyInForce } from '../../src/engine/policy-in-force.js';
import type { PolicyRotated } from '../../src/engine/types.js';
import { Health } from '../../src/health.js';
import { Metrics } from '../../src/metrics.js';

const rotated = (by: 'operator' | 'live'): PolicyRotated => ({
  kind: 'rotated',
  by,
  digest: new Uint8Array(32),
  previous: new Uint8Array(32),
  remapped: false,
  from: 0n,
});

/** The policy in force and the live intake, as far as a sync calls them, and what was called. */
function world(adopted: PolicyRotated | undefined, ticked: PolicyRotated | undefined) {
  const calls: string[] = [];
  let fail = false;
  const policies = {
    adopt: async () => {
      calls.push('adopt');
      if (fail) throw new Error('connection reset');
      return adopted;
    },
  } as unknown as PolicyInForce;
  const live = {
    readReports: async () => {
      calls.push('read');
    },
    tick: async () => {
      calls.push('tick');
      return ticked;
    },
  } as unknown as LiveIntake;
  const health = new Health({ log: () => {} });
  const metrics = new Metrics();
  const failing = (on: boolean) => {
    fail = on;
  };
  return { policies, live, health, metrics, calls, failing };
}

describe('LiveSync', () => {
  it('reads the reports again after an adoption only', async () => {
    const w = world(undefined, undefined);
    expect(await new LiveSync(w).adopt()).toEqual(undefined);
    expect(w.calls).toEqual(['adopt']);
    const v = world(rotated('live'), undefined);
    expect(await new LiveSync(v).adopt()).toEqual(rotated('live'));
    expect(v.calls).toEqual(['adopt', 'read']);
  });

  it("adopts, reads and ticks: the tick's rotation, else the adoption", async () => {
    const w = world(rotated('operator'), rotated('live'));
    expect(await new LiveSync(w).sync()).toEqual(rotated('live'));
    expect(w.calls).toEqual(['adopt', 'read', 'tick']);
    const v = world(rotated('operator'), undefined);
    expect(await new LiveSync(v).sync()).toEqual(rotated('operator'));
    expect(await new LiveSync({ ...v, live: undefined }).sync()).toEqual(rotated('operator'));
  });

  it('tells a store that fails once, and clears it when it answers again', async () => {
    const w = world(undefined, undefined);
    const sync = new LiveSync(w);
    w.failing(true);
    expect(await sync.sync()).toEqual(undefined);
    expect(await sync.adopt()).toEqual(undefined);
    expect(w.health.has('store_queries')).toEqual(true);
    expect(w.metrics.storeErrors.get({ op: 'query' })).toEqual(2);
    w.failing(false);
    await sync.sync();
    expect(w.health.has('store_queries')).toEqual(false);
  });
});
