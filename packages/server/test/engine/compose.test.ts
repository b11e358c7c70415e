// The engine's collaborators, composed: defaults filled from the options (grace in whole seconds,
// a clock, metrics and health of their own), and the policy in force the one given.
import { nodeBackend } from '@wai-steering/wire/node';
import { afterEach, describe, expect, it } from 'vitest';
import { composeEngine } from '../../src/engine/compose.js';
import { Health } from '../../src/health.js';
import { demoApp } from '../helpers/setup.js';

type Ctx = Awaited<ReturnType<typeof demoApp>>;
let ctx: Ctx | undefined;
afterEach(async () => {
  await ctx?.close();
  ctx = undefined;
});

describe('composeEngine', () => {
  it('fills the defaults and puts the policy given in force', async () => {
    ctx = await demoApp();
    const { policy, policyBytes, policyDigest, ...rest } = ctx.materials;
    const options = {
      ...rest,
      policy,
      policyBytes,
      policyDigest,
      store: ctx.store,
      backend: nodeBackend,
      graceMs: 2500,
      maxSessions: 10,
      maxQueue: 10,
    };
    const hooks = { link: () => undefined, closing: () => false };
    const parts = composeEngine(options, hooks);
    expect(parts.graceS).toEqual(3);
    expect(parts.policies.current.digest).toEqual(policyDigest);
    expect(parts.sessions.ids).toEqual(policy.pathways.map((p) => p.id));
    expect(parts.live).toEqual(undefined);
    expect(parts.health.has('store_queries')).toEqual(false);
    // A clock and health given are the ones used.
    const health = new Health({ log: () => {} });
    const given = composeEngine({ ...options, clock: () => 42n, health }, hooks);
    expect(given.now()).toEqual(42n);
    expect(given.health).toBe(health);
  });
});
