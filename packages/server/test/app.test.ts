import { createHash } from 'node:crypto';
import { verifyDecision } from '@wai-steering/verifier';
import { readDecision, STATUS, toHex, unwrap } from '@wai-steering/wire';
import { afterEach, describe, expect, it } from 'vitest';
import { demoApp, get, post, postPeriods, text } from './helpers/setup.js';

type Ctx = Awaited<ReturnType<typeof demoApp>>;
let ctx: Ctx | undefined;
afterEach(async () => {
  await ctx?.close();
  ctx = undefined;
});

const S = 1_000_000n; // one second, µs

function manifestOf(body: string | Uint8Array) {
  return JSON.parse(text(body)) as {
    TTL: number;
    'RELOAD-URI': string;
    'PATHWAY-PRIORITY': string[];
    'science.transaction.wai-decision': string;
  };
}

async function decide(c: Ctx, query = '', headers: Record<string, string> = {}) {
  const res = await get(c.app, `/steer${query}`, headers);
  expect(res.status).toBe(200);
  const m = manifestOf(res.body);
  const hex = m['science.transaction.wai-decision'].slice(-64);
  const got = await get(c.app, `/decisions/${hex}`);
  expect(got.status).toBe(200);
  const bytes = got.body as Uint8Array;
  const decision = unwrap(readDecision(bytes));
  return { res, manifest: m, text: text(res.body), hex, bytes, decision };
}

describe('steering', () => {
  it('serves a verifiable decision with the manifest of §8.1', async () => {
    ctx = await demoApp();
    const t0 = ctx.clock.us;
    await postPeriods(ctx, [t0 - 4n * S, t0 - 2n * S, t0]);
    ctx.clock.advance(1000); // past L: the window is [t0 − 6 s, t0)
    const d = await decide(ctx, '?_HLS_pathway="cdn-a"&_HLS_throughput=9000000');
    expect(d.res.headers['content-type']).toBe('application/vnd.apple.steering-list');
    expect(d.res.headers['cache-control']).toBe('no-store');
    expect(d.res.headers['access-control-allow-origin']).toBe('*');
    expect(d.decision.pathways.map((p) => p.status)).toEqual([
      STATUS.figure,
      STATUS.figure,
      STATUS.unmetered,
    ]);
    expect(d.decision.pathways.map((p) => p.evidence.length)).toEqual([6, 6, 6]);
    expect(d.decision.protocol).toBe(1);
    expect(d.decision.report.present).toBe(3);
    // The digest names the exact bytes.
    const digest = createHash('sha256')
      .update(d.bytes.subarray(0, d.bytes.length - 64))
      .digest('hex');
    expect(digest).toBe(d.hex);
    const records = await Promise.all(
      d.decision.pathways
        .flatMap((p) => p.evidence)
        .map(async (e) => {
          const r = await get(ctx!.app, `/records/${toHex(e)}`);
          expect(r.status).toBe(200);
          return r.body as Uint8Array;
        }),
    );
    const outcome = verifyDecision({
      room: ctx.setup.roomBytes,
      keyLog: ctx.setup.keyLogBytes,
      policy: ctx.setup.policyBytes,
      decision: d.bytes,
      records,
      manifest: d.text,
    });
    expect(outcome.outcome).toBe('accept');
  });

  it("archives and serves the same decisions with wire's signDecision", async () => {
    ctx = await demoApp({ encoder: 'wire' });
    const t0 = ctx.clock.us;
    await postPeriods(ctx, [t0 - 4n * S, t0 - 2n * S, t0]);
    ctx.clock.advance(1000);
    for (let i = 0; i < 3; i++) {
      const d = await decide(ctx, `?_HLS_pathway=cdn-b&wai_session=${String(i).repeat(32)}`);
      expect(d.decision.pathways.map((p) => p.evidence.length)).toEqual([6, 6, 6]);
      const digest = createHash('sha256')
        .update(d.bytes.subarray(0, d.bytes.length - 64))
        .digest('hex');
      expect(digest).toBe(d.hex);
    }
  });

  it('reads DASH when a _DASH_ parameter is present, and CMCD from the header', async () => {
    ctx = await demoApp();
    const d = await decide(ctx, '?_DASH_pathway="cdn-b,cdn-a"&_DASH_throughput=7000000,1', {
      'cmcd-request': 'bl=12000,mtp=3000',
    });
    expect(d.decision.protocol).toBe(2);
    expect(d.decision.report).toMatchObject({
      present: 7,
      pathway: 1,
      throughput: 7_000_000n,
      buffer: 12_000n,
    });
  });

  it('decides with stale evidence when no record has arrived', async () => {
    ctx = await demoApp();
    const d = await decide(ctx);
    expect(d.decision.pathways.every((p) => p.status === STATUS.stale)).toBe(true);
    expect(d.decision.report.present).toBe(0);
  });

  it('names records that arrive late for the window in use in its later decisions', async () => {
    ctx = await demoApp();
    const t0 = ctx.clock.us;
    ctx.clock.advance(1000);
    const before = await decide(ctx);
    expect(before.decision.pathways.every((p) => p.status === STATUS.stale)).toBe(true);
    await postPeriods(ctx, [t0 - 4n * S, t0 - 2n * S, t0]);
    ctx.clock.advance(10);
    const after = await decide(ctx);
    expect(after.decision.pathways.map((p) => p.status)).toEqual([
      STATUS.figure,
      STATUS.figure,
      STATUS.unmetered,
    ]);
  });

  it('keeps the session it was given and mints one otherwise', async () => {
    ctx = await demoApp();
    const s = 'aa'.repeat(16);
    const d1 = await decide(ctx, `/reload?wai_session=${s}`);
    expect(d1.manifest['RELOAD-URI']).toBe(`http://127.0.0.1:8080/steer/reload?wai_session=${s}`);
    expect(toHex(d1.decision.session)).toBe(s);
    const d2 = await decide(ctx, '?wai_session=NOT-HEX');
    expect(toHex(d2.decision.session)).not.toBe(s);
    expect(d2.manifest['RELOAD-URI']).toMatch(/wai_session=[0-9a-f]{32}$/);
  });
});

describe('loads and sessions', () => {
  it('counts a session in its first pathway until TTL + grace, its own count included', async () => {
    ctx = await demoApp({ graceMs: 10_000 });
    const s = '11'.repeat(16);
    const d1 = await decide(ctx, `/reload?wai_session=${s}`);
    expect(d1.decision.pathways.map((p) => p.load)).toEqual([0, 0, 0]);
    const first = d1.decision.priority[0]!;
    expect(ctx.engine.sessions.loads[first]).toBe(1);
    // Another session sees it.
    const d2 = await decide(ctx, `/reload?wai_session=${'22'.repeat(16)}`);
    expect(d2.decision.pathways[first]!.load).toBe(1);
    // The session's own next decision states its own count (§6.1).
    ctx.clock.advance(5000);
    const d3 = await decide(ctx, `/reload?wai_session=${s}`);
    expect(d3.decision.pathways.reduce((a, p) => a + p.load, 0)).toBe(2);
    // Past TTL + grace without a request, a session no longer counts.
    const ttl = d3.decision.ttl;
    ctx.clock.advance((ttl + 10 + 1) * 1000);
    ctx.engine.sweep(1 << 30);
    expect(Array.from(ctx.engine.sessions.loads)).toEqual([0, 0, 0]);
    const d4 = await decide(ctx, `/reload?wai_session=${'33'.repeat(16)}`);
    expect(d4.decision.pathways.map((p) => p.load)).toEqual([0, 0, 0]);
  });

  it('moves a session to its new first pathway', async () => {
    ctx = await demoApp();
    const s = '44'.repeat(16);
    // c = cdn-b-east with a short buffer: held there (§6.4 step 1, buffer).
    const d1 = await decide(ctx, `/reload?wai_session=${s}&_HLS_pathway=cdn-b-east&CMCD=bl%3D100`);
    expect(d1.decision.reason).toBe(1);
    expect(d1.decision.priority[0]).toBe(2);
    expect(Array.from(ctx.engine.sessions.loads)).toEqual([0, 0, 1]);
    const d2 = await decide(ctx, `/reload?wai_session=${s}`);
    expect(d2.decision.pathways[2]!.load).toBe(1);
    const next = d2.decision.priority[0]!;
    const expected = [0, 0, 0];
    expected[next] = 1;
    expect(Array.from(ctx.engine.sessions.loads)).toEqual(expected);
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

describe('retention', () => {
  it('prunes decisions by age, and records only when no kept decision names them', async () => {
    ctx = await demoApp();
    const t0 = ctx.clock.us;
    const early = await postPeriods(ctx, [t0 - 4n * S, t0 - 2n * S, t0]);
    ctx.clock.advance(1000);
    const old = await decide(ctx);
    expect(old.decision.pathways[0]!.evidence.length).toBe(2 * 3);
    // An hour later: new records, a new decision.
    ctx.clock.advance(3_600_000);
    const t1 = (ctx.clock.us / (2n * S)) * 2n * S;
    const late = await postPeriods(ctx, [t1 - 4n * S, t1 - 2n * S, t1]);
    ctx.clock.advance(1000);
    const fresh = await decide(ctx);
    // Records kept 1 minute, decisions 2 hours: every record named by the old decision stays.
    let r = await ctx.engine.prune(60_000, 7_200_000);
    expect(r.decisions).toBe(0);
    expect(r.records).toBe(0);
    for (const hex of early) expect((await get(ctx.app, `/records/${hex}`)).status).toBe(200);
    // Decisions kept 30 minutes: the old decision goes, and with it the records it named.
    r = await ctx.engine.prune(60_000, 1_800_000);
    expect(r.decisions).toBe(1);
    expect(r.records).toBe(early.length);
    expect((await get(ctx.app, `/decisions/${old.hex}`)).status).toBe(404);
    for (const hex of early) expect((await get(ctx.app, `/records/${hex}`)).status).toBe(404);
    expect((await get(ctx.app, `/decisions/${fresh.hex}`)).status).toBe(200);
    for (const hex of late) expect((await get(ctx.app, `/records/${hex}`)).status).toBe(200);
    // Decisions kept 1 second: everything named goes once the records are old enough too.
    ctx.clock.advance(120_000);
    r = await ctx.engine.prune(60_000, 1000);
    expect(r.decisions).toBe(1);
    expect(r.records).toBe(late.length);
  });
});

describe('retention and the window in use', () => {
  it('keeps records the current window may name, however short their retention', async () => {
    ctx = await demoApp();
    const t0 = ctx.clock.us;
    const digests = await postPeriods(ctx, [t0 - 4n * S, t0 - 2n * S, t0]);
    ctx.clock.advance(1000);
    const r = await ctx.engine.prune(1, 1);
    expect(r.records).toBe(0);
    const d = await decide(ctx);
    expect(d.decision.pathways[0]!.evidence.length).toBe(6);
    for (const hex of digests) expect((await get(ctx.app, `/records/${hex}`)).status).toBe(200);
  });
});

describe('the other routes', () => {
  it('serves the policy, the room, the key log, health and metrics', async () => {
    ctx = await demoApp();
    const m = ctx.materials;
    const p = await get(ctx.app, `/policies/${toHex(m.policyDigest)}`);
    expect(p.status).toBe(200);
    expect(Buffer.from(p.body as Uint8Array).equals(Buffer.from(ctx.setup.policyBytes))).toBe(true);
    const room = toHex(m.room.roomId);
    const d = await get(ctx.app, `/rooms/${room}/descriptor`);
    expect(Buffer.from(d.body as Uint8Array).equals(Buffer.from(ctx.setup.roomBytes))).toBe(true);
    const k = await get(ctx.app, `/rooms/${room}/key-log`);
    expect(Buffer.from(k.body as Uint8Array).equals(Buffer.from(ctx.setup.keyLogBytes))).toBe(true);
    expect((await get(ctx.app, `/rooms/${'00'.repeat(32)}/key-log`)).status).toBe(404);
    expect((await get(ctx.app, `/policies/${'00'.repeat(32)}`)).status).toBe(404);
    expect((await get(ctx.app, `/decisions/${'00'.repeat(32)}`)).status).toBe(404);
    expect((await get(ctx.app, '/healthz')).status).toBe(200);
    await decide(ctx);
    const metrics = text((await get(ctx.app, '/metrics')).body);
    expect(metrics).toContain('wai_steering_decisions_total{reason=');
    expect(metrics).toContain('wai_steering_load{pathway="cdn-a"}');
    expect(metrics).toContain('wai_steering_request_duration_seconds_bucket{le="+Inf"} 1');
  });

  it('answers 404, 405, 414 and CORS preflight', async () => {
    ctx = await demoApp();
    expect((await get(ctx.app, '/nothing/here')).status).toBe(404);
    expect((await ctx.app.handle({ method: 'DELETE', target: '/steer', headers: {} })).status).toBe(
      405,
    );
    expect((await ctx.app.handle({ method: 'GET', target: '/records', headers: {} })).status).toBe(
      405,
    );
    expect((await get(ctx.app, `/steer?${'a'.repeat(9000)}`)).status).toBe(414);
    const pre = await ctx.app.handle({ method: 'OPTIONS', target: '/steer', headers: {} });
    expect(pre.status).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe('*');
  });

  it('answers 503 with Retry-After when the commit queue is full', async () => {
    ctx = await demoApp({ maxQueue: 2 });
    const all = await Promise.all(Array.from({ length: 5 }, () => get(ctx!.app, '/steer')));
    const codes = all.map((r) => r.status).sort();
    expect(codes).toEqual([200, 200, 503, 503, 503]);
    expect(all.find((r) => r.status === 503)!.headers['retry-after']).toBe('1');
  });
});
