// `POST /capacity`: a site's report read up to its limit, refused with a reason, or taken.
import { toHex } from '@wai-steering/wire';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_REPORT_BYTES } from '../../src/live/report.js';
import { demoApp, text } from '../helpers/setup.js';
import { signReport } from '../live/world.js';

type Ctx = Awaited<ReturnType<typeof demoApp>>;
let ctx: Ctx | undefined;
afterEach(async () => {
  await ctx?.close();
  ctx = undefined;
});

function post(c: Ctx, body: Uint8Array | string, headers: Record<string, string> = {}) {
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  return c.app.handle({
    method: 'POST',
    target: '/capacity',
    headers,
    body: async (limit) => (bytes.length > limit ? 'too_large' : bytes),
  });
}

const LIVE = { pathways: new Set([1]), capacityThresholdPpm: 100_000, latencyThresholdMs: 10 };

describe('POST /capacity', () => {
  it('is 404 when the configuration takes no capacity reports', async () => {
    ctx = await demoApp();
    const res = await post(ctx, 'x.y.z');
    expect(res.status).toBe(404);
    expect(JSON.parse(text(res.body)).message).toMatch(/takes no capacity reports/);
  });

  it('refuses a body past its limit (413), one that is not UTF-8, and one it cannot verify', async () => {
    ctx = await demoApp({ live: LIVE });
    expect((await post(ctx, 'x', { 'content-length': String(MAX_REPORT_BYTES + 1) })).status).toBe(
      413,
    );
    expect((await post(ctx, new Uint8Array(MAX_REPORT_BYTES + 1))).status).toBe(413);
    const notUtf8 = await post(ctx, new Uint8Array([0xff, 0xfe]));
    expect(notUtf8.status).toBe(400);
    expect(JSON.parse(text(notUtf8.body))).toEqual({
      reason: 'malformed_report',
      message: 'a report is ASCII: one compact JWS',
    });
    const junk = await post(ctx, 'a.b.c');
    expect(junk.status).toBe(400);
    expect(JSON.parse(text(junk.body)).reason).toBe('malformed_report');
  });

  it("takes an edge hop's signed report (201), then the same again is no newer (200)", async () => {
    ctx = await demoApp({ live: LIVE });
    const hop = ctx.setup.hops.find((h) => h.pathway === 1 && h.place === 1)!;
    const key = hop.key;
    const jws = await signReport(key, {
      room: toHex(ctx.setup.roomId),
      pathway: ctx.setup.policy.pathways[1]!.id,
      gas: 7,
      t: String(ctx.clock.us),
      expires: String(ctx.clock.us + 5_000_000n),
      window_us: '1000000',
    });
    const taken = await post(ctx, jws);
    expect(taken.status).toBe(201);
    expect(JSON.parse(text(taken.body))).toEqual({
      taken: true,
      hop: toHex(key.publicKey),
      gas: 7,
      policy: toHex(ctx.engine.policyDigest),
    });
    const again = await post(ctx, jws);
    expect(again.status).toBe(200);
    expect(JSON.parse(text(again.body))).toEqual({
      taken: false,
      why: 'no newer than the report held for this hop',
    });
  });

  it('answers 503 once the server is closing', async () => {
    ctx = await demoApp({ live: LIVE });
    await ctx.engine.close();
    const res = await post(ctx, 'x.y.z');
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
  });
});
