// An engine on a shared store (a lead on the operator's rotations): decisions before the
// rotation's instant name the policy before it, decisions from it the new one; a decision waits
// for a read of the order of policies when the last is half a lead old, and is answered
// `store_unavailable` when that read fails.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { jwkToKeyPair, signPolicy, toHex } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { afterEach, describe, expect, it } from 'vitest';
import { SteeringEngine } from '../../src/engine/engine.js';
import { SqliteStore } from '../../src/store/sqlite/index.js';
import { demoApp } from '../helpers/setup.js';

type Ctx = Awaited<ReturnType<typeof demoApp>>;
let ctx: Ctx | undefined;
const opened: SteeringEngine[] = [];
afterEach(async () => {
  for (const e of opened.splice(0)) await e.close();
  await ctx?.close();
  ctx = undefined;
});

const S = 1_000_000n;

describe('an engine whose operator’s rotations are put in force a lead ahead', () => {
  it('decides under the policy in force at each decision’s instant, after a recent read', async () => {
    ctx = await demoApp();
    const c = ctx;
    const store = new SqliteStore(':memory:');
    let failing = false;
    const schedule = store.policySchedule.bind(store);
    store.policySchedule = (room, now) =>
      failing ? Promise.reject(new Error('the store is gone')) : schedule(room, now);
    const { warnings: _, ...materials } = c.materials;
    const engine = await SteeringEngine.open({
      ...materials,
      store,
      backend: nodeBackend,
      graceMs: 10_000,
      maxSessions: 1000,
      maxQueue: 1000,
      clock: c.clock.now,
      rotationLeadUs: 3n * S,
    });
    opened.push(engine);
    const old = toHex(engine.policyDigest);
    const decided = async () => {
      const r = await engine.decide({ target: '/steer' });
      return r.kind === 'manifest' ? toHex(r.fields.policy) : r.kind;
    };
    expect(await decided()).toBe(old);
    const authority = jwkToKeyPair(
      JSON.parse(readFileSync(join(c.setup.dir, 'keys', 'authority.jwk'), 'utf8')),
      nodeBackend,
    );
    const bytes = signPolicy({ ...c.setup.policy, ttl_s: 12 }, authority.secretKey!, {
      backend: nodeBackend,
    });
    const r = await engine.rotatePolicy(bytes, 'operator');
    expect(r.from).toBe(c.clock.us + 3n * S);
    // A second later: the order read 1 s ago, the rotation not yet in force.
    c.clock.us += S;
    expect(await decided()).toBe(old);
    // A µs before its instant, the order read 2 s ago: read again first, then decided.
    c.clock.us = r.from - 1n;
    expect(await decided()).toBe(old);
    c.clock.us = r.from;
    expect(await decided()).toBe(toHex(r.digest));
    // The order cannot be read, and the last read is too old to decide on.
    failing = true;
    c.clock.us += 2n * S;
    expect(await decided()).toBe('store_unavailable');
    failing = false;
    expect(await decided()).toBe(toHex(r.digest));
  });
});
