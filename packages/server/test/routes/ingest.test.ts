// `POST /records` and `GET /records/<digest>`: a record taken once, refused with the reason; and it
// tells what it did: a refusal carries a sentence beside its code, and a record
// taken that no decision will name says so (`used: false` and why).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { jwkToKeyPair, signHopRecord, signPolicy } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { demoApp, get, post, text } from '../helpers/setup.js';

type Ctx = Awaited<ReturnType<typeof demoApp>>;
let ctx: Ctx | undefined;
afterEach(async () => {
  await ctx?.close();
  ctx = undefined;
});

const S = 1_000_000n; // one second, µs

describe('POST /records: what the server did with a record', () => {
  let ctx: Ctx;
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

describe('POST /records: records no window will use', () => {
  it('a record hours old, or off the period grid, is taken (201) with used: false and why', async () => {
    ctx = await demoApp();
    const P = ctx.setup.policy.period_us;
    const hop = ctx.setup.hops.find((h) => h.name === 'cdn-b-edge')!;
    const now = ctx.clock.us;
    const old = ((now - 7n * 3600n * S) / P) * P;
    const stale = await post(ctx.app, '/records', ctx.sim.record(hop, old, old + P, 10));
    expect(stale.status).toBe(201);
    expect(JSON.parse(text(stale.body))).toMatchObject({
      used: false,
      why: expect.stringMatching(/^it starts \d+ h \d+ min before the window in use/),
    });
    const off = ((now - 2n * P) / P) * P + P / 2n;
    const offGrid = await post(ctx.app, '/records', ctx.sim.record(hop, off, off + P, 10));
    expect(offGrid.status).toBe(201);
    expect(JSON.parse(text(offGrid.body)).why).toMatch(/is not cut on the policy's period P/);
  });
});

describe('records', () => {
  it('accepts a record once, idempotent by digest, and serves it', async () => {
    ctx = await demoApp();
    const hop = ctx.setup.hops[0]!;
    const bytes = ctx.sim.record(hop, ctx.clock.us - 2n * S, ctx.clock.us, 10);
    const r1 = await post(ctx.app, '/records', bytes);
    expect(r1.status).toBe(201);
    const { digest } = JSON.parse(text(r1.body));
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    const r2 = await post(ctx.app, '/records', bytes);
    expect(r2.status).toBe(200);
    expect(JSON.parse(text(r2.body)).digest).toBe(digest);
    const got = await get(ctx.app, `/records/${digest}`);
    expect(got.status).toBe(200);
    expect(Buffer.from(got.body as Uint8Array).equals(Buffer.from(bytes))).toBe(true);
    expect(got.headers['cache-control']).toContain('immutable');
  });

  it('refuses with the reason code and where', async () => {
    ctx = await demoApp();
    const hop = ctx.setup.hops[0]!;
    const good = ctx.sim.record(hop, ctx.clock.us - 2n * S, ctx.clock.us, 10);
    const cases: [Uint8Array, string][] = [
      [good.subarray(0, 3), 'truncated'],
      [new TextEncoder().encode('nope, not a record'), 'malformed'],
      [good.subarray(0, good.length - 1), 'truncated'],
    ];
    const badSig = good.slice();
    badSig[badSig.length - 1]! ^= 1;
    cases.push([badSig, 'bad_signature']);
    const wrongRoom = good.slice();
    wrongRoom[10]! ^= 1;
    cases.push([wrongRoom, 'wrong_room']);
    for (const [body, reason] of cases) {
      const res = await post(ctx.app, '/records', body);
      expect(res.status, reason).toBe(400);
      const j = JSON.parse(text(res.body));
      expect(j.reason).toBe(reason);
      expect(typeof j.where).toBe('object');
    }
    expect(ctx.engine.metrics.refused.get({ reason: 'truncated' })).toBe(2);
  });

  it('refuses a hop the key log does not list', async () => {
    ctx = await demoApp();
    const stranger = {
      ...ctx.setup.hops[0]!,
      key: { secretKey: new Uint8Array(32).fill(7), publicKey: new Uint8Array(0) },
    };
    const { nodeBackend } = await import('@wai-steering/wire/node');
    const key = {
      secretKey: stranger.key.secretKey,
      publicKey: nodeBackend.publicKey(stranger.key.secretKey),
    };
    const bytes = ctx.sim.record({ ...stranger, key }, ctx.clock.us - 2n * S, ctx.clock.us, 1);
    const res = await post(ctx.app, '/records', bytes);
    expect(res.status).toBe(400);
    expect(JSON.parse(text(res.body)).reason).toBe('hop_not_authorised');
  });

  it('refuses a body over the limit with 413', async () => {
    ctx = await demoApp();
    const res = await post(ctx.app, '/records', new Uint8Array(5000));
    expect(res.status).toBe(413);
  });
});
