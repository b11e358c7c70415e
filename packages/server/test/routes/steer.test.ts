// The steering route (§4, §8.1): decisions over the evidence and the loads, served as manifests.
import { createHash } from 'node:crypto';
import { verifyDecision } from '@wai-steering/verifier';
import { STATUS, toHex } from '@wai-steering/wire';
import { afterEach, describe, expect, it } from 'vitest';
import { decide, demoApp, get, minted, postPeriods } from '../helpers/setup.js';

type Ctx = Awaited<ReturnType<typeof demoApp>>;
let ctx: Ctx | undefined;
afterEach(async () => {
  await ctx?.close();
  ctx = undefined;
});

const S = 1_000_000n; // one second, µs

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
      const d = await decide(ctx, `?_HLS_pathway=cdn-b&wai_session=${minted(ctx, i)}`);
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

  it('does not read a CMCD-Request header over limits.max_cmcd_bytes (finding 9)', async () => {
    ctx = await demoApp();
    // 60 KB: read for bl and mtp only, so a header this long is not read at all.
    const long = `bl=12000,mtp=3000,${'x'.repeat(60_000)}`;
    const d = await decide(ctx, '?_HLS_pathway=cdn-b', { 'cmcd-request': long });
    expect(d.decision.report.present).toBe(1); // the pathway alone: no buffer (§4: absent)
    expect(ctx.engine.metrics.cmcdIgnored.get()).toBe(1);
    const ok = await decide(ctx, '?_HLS_pathway=cdn-b', { 'cmcd-request': 'bl=12000,mtp=3000' });
    expect(ok.decision.report).toMatchObject({ present: 7, buffer: 12_000n });
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
    const s = minted(ctx, 0xaa);
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
    const s = minted(ctx, 0x11);
    const d1 = await decide(ctx, `/reload?wai_session=${s}`);
    expect(d1.decision.pathways.map((p) => p.load)).toEqual([0, 0, 0]);
    const first = d1.decision.priority[0]!;
    expect(ctx.engine.sessions.loads[first]).toBe(1);
    // Another session sees it.
    const d2 = await decide(ctx, `/reload?wai_session=${minted(ctx, 0x22)}`);
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
    const d4 = await decide(ctx, `/reload?wai_session=${minted(ctx, 0x33)}`);
    expect(d4.decision.pathways.map((p) => p.load)).toEqual([0, 0, 0]);
  });

  it('moves a session to its new first pathway', async () => {
    ctx = await demoApp();
    const s = minted(ctx, 0x44);
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
