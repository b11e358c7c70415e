// `POST /records` tells what it did: a refusal carries a sentence beside its code, and a record
// taken that no decision will name says so (`used: false` and why).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { jwkToKeyPair, signHopRecord, signPolicy } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoApp, post, text } from '../helpers/setup.js';

describe('POST /records: what the server did with a record', () => {
  let ctx: Awaited<ReturnType<typeof demoApp>>;
  beforeAll(async () => {
    ctx = await demoApp();
  });
  afterAll(() => ctx.close());

  const period = () => {
    const P = ctx.setup.policy.period_us;
    const end = (ctx.clock.us / P) * P;
    return { start: end - P, end };
  };

  it('a refusal names its code, where, and a sentence', async () => {
    const { start, end } = period();
    const stranger = new Uint8Array(32).fill(5);
    const bytes = signHopRecord(
      {
        room: ctx.setup.roomId,
        hop: nodeBackend.publicKey(stranger),
        start,
        end,
        sessions: 1,
        class: 0,
        joules: 0n,
        subscriber_us: [0n, 0n, 0n, 0n, 0n, 0n, 0n, 0n],
        tracks: [],
      },
      stranger,
      { backend: nodeBackend },
    );
    const res = await post(ctx.app, '/records', bytes);
    expect(res.status).toBe(400);
    const body = JSON.parse(text(res.body));
    expect(body).toMatchObject({ reason: 'hop_not_authorised', where: { magic: 'WMH1' } });
    expect(body.message).toMatch(/key log does not let this hop sign it/);
  });

  it('a record of a hop on no pathway of the policy in force is taken, and said unused', async () => {
    const { start, end } = period();
    const hop = ctx.setup.hops.find((h) => h.name === 'cdn-a-edge')!;
    const used = await post(ctx.app, '/records', ctx.sim.record(hop, start, end, 10));
    expect(used.status).toBe(201);
    expect(JSON.parse(text(used.body))).not.toHaveProperty('used');
    // The operator removes cdn-a from the policy: its hops' records are named by no decision.
    const p = ctx.setup.policy;
    const key = jwkToKeyPair(
      JSON.parse(readFileSync(join(ctx.setup.dir, 'keys', 'authority.jwk'), 'utf8')),
      nodeBackend,
    );
    const next = { ...p, initial: 0, pathways: [p.pathways[1]!, { ...p.pathways[2]!, base: 0 }] };
    await ctx.engine.rotatePolicy(
      signPolicy(next, key.secretKey!, { backend: nodeBackend }),
      'operator',
    );
    const res = await post(
      ctx.app,
      '/records',
      ctx.sim.record(hop, start - (end - start), start, 10),
    );
    expect(res.status).toBe(201);
    expect(JSON.parse(text(res.body))).toMatchObject({
      used: false,
      why: 'its hop is on no pathway of the policy in force',
    });
  });
});
