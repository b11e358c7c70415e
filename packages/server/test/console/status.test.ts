import { toHex } from '@wai-steering/wire';
import { afterEach, describe, expect, it } from 'vitest';
import { readableFigure } from '../../src/console/status.js';
import { demoApp, get, post, postPeriods, text } from '../helpers/setup.js';

type Ctx = Awaited<ReturnType<typeof demoApp>>;
let ctx: Ctx | undefined;
afterEach(async () => {
  await ctx?.close();
  ctx = undefined;
});

/** Closes the console's current second, as the server's 1 s timer does. */
function sample(c: Ctx): void {
  c.activity.sample(Number(c.clock.us / 1_000_000n), c.engine.sessions.loads);
}

const START = 1_800_000_000_000_000n; // a multiple of P = 2 s
const P = 2_000_000n;

/** The app with the console on, records posted for the periods that end at `ends`. */
async function withRecords(ends: bigint[]) {
  ctx = await demoApp({ start: START, console: { enabled: true, auth: null } });
  await postPeriods(ctx, ends);
  // The window at START + L + 1 ms is [START − 3P, START).
  ctx.clock.us = START + P / 4n + 1000n;
  return ctx;
}

function body(res: { body: string | Uint8Array }) {
  return JSON.parse(text(res.body));
}

describe('GET /status', () => {
  it('states each pathway as the evidence and the server do', async () => {
    const c = await withRecords([START - 2n * P, START - P, START]);
    // Two sessions steered, each new: both placed first where the manifests say.
    const firsts: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await get(c.app, '/steer');
      expect(res.status).toBe(200);
      firsts.push(JSON.parse(text(res.body))['PATHWAY-PRIORITY'][0]);
    }
    sample(c);
    const res = await get(c.app, '/status');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    // Operational data: no CORS, so that no other origin's page reads it.
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const s = body(res);
    expect(s.window).toEqual({ a: String(START - 3n * P), b: String(START) });
    expect(s.pathways.map((p: { id: string }) => p.id)).toEqual(['cdn-a', 'cdn-b', 'cdn-b-east']);
    expect(s.pathways.map((p: { status: string }) => p.status)).toEqual([
      'figure',
      'figure',
      'unmetered',
    ]);
    expect(s.pathways[2].cloneOf).toBe('cdn-b');
    // §6.2: cdn-b's OnChipCounter ranks before cdn-a's ModelBased; cdn-b-east has no figure.
    expect(s.order).toEqual(['cdn-b', 'cdn-a', 'cdn-b-east']);
    expect(s.pathways.map((p: { order: number }) => p.order)).toEqual([2, 1, 3]);
    expect(s.pathways.map((p: { rank: number }) => p.rank)).toEqual([2, 1, 4]);
    const loads = [0, 0, 0];
    for (const f of firsts) loads[['cdn-a', 'cdn-b', 'cdn-b-east'].indexOf(f)]!++;
    expect(s.pathways.map((p: { load: number }) => p.load)).toEqual(loads);
    expect(s.pathways.map((p: { load: number }) => p.load)).toEqual(
      Array.from(c.engine.sessions.loads),
    );
    // J and D: the sums over the records of the window (each hop posted 3 periods).
    const b = s.pathways[1];
    expect(b.records).toBe(6);
    expect(b.figure.unit).toBe('J/GB');
    expect(b.figure.value).toBe(readableFigure(1, BigInt(b.joules_uj), BigInt(b.delivery)).value);
    // The three limits and the band.
    expect(b.limits.latency.ok).toBe(true);
    expect(b.capacity).toBe(50_000);
    expect(b.band).toEqual([0, 100_000]);
    expect(s.pathways[2].band).toEqual([100_000, 150_000]);
    // Placed first: the two decisions.
    const placed = s.pathways.map((p: { firstShare: { placed: number } }) => p.firstShare.placed);
    expect(placed).toEqual(loads);
    expect(s.decisions.total).toBe(2);
    expect(s.decisions.recent).toHaveLength(2);
    expect(s.decisions.recent[0].uri).toMatch(/\/decisions\/[0-9a-f]{64}$/);
    // Per hop: the last period held, its age, and the ingest tallies.
    const hop = s.pathways[0].hops[0];
    expect(hop.last.end).toBe(String(START));
    expect(hop.age_us).toBe(String(P / 4n + 1000n));
    expect(hop.late).toBe(false);
    // Posted at START: the records of the periods ending START − 2P and START − P came after
    // their lag L (P / 4) had passed; the one ending at START did not.
    expect(hop.ingest).toEqual({ accepted: 3, duplicate: 0, late: 2, refused: {} });
  });

  it('says why a pathway is stale: the hop and the periods it has no record of', async () => {
    ctx = await demoApp({ start: START, console: { enabled: true, auth: null } });
    const c = ctx;
    // Every hop but cdn-a's interior hop signs the middle period.
    const P0 = START - P;
    for (const end of [START - 2n * P, P0, START]) {
      for (const hop of c.setup.hops) {
        if (end === P0 && hop.pathway === 0 && hop.place === 2) continue;
        const res = await post(c.app, '/records', c.sim.record(hop, end - P, end, 10));
        expect(res.status).toBe(201);
      }
    }
    c.clock.us = START + P / 4n + 1000n;
    const s = body(await get(c.app, '/status'));
    const a = s.pathways[0];
    expect(a.status).toBe('stale');
    expect(a.figure).toBeNull();
    const interior = c.setup.policy.pathways[0]!.hops[1]!;
    expect(a.stale.note).toBeNull();
    expect(a.stale.hops).toEqual([
      {
        index: 1,
        key: toHex(interior.key),
        place: 'interior',
        problems: [{ kind: 'missing', start: String(P0 - P), end: String(P0) }],
      },
    ]);
  });

  it('counts refused records by reason, per hop when the record reads', async () => {
    ctx = await demoApp({ start: START, console: { enabled: true, auth: null } });
    const c = ctx;
    const hop = c.setup.hops[0]!;
    const bytes = c.sim.record(hop, START - P, START, 10);
    bytes[bytes.length - 1]! ^= 1;
    expect((await post(c.app, '/records', bytes)).status).toBe(400);
    expect((await post(c.app, '/records', new Uint8Array([1, 2, 3]))).status).toBe(400);
    const s = body(await get(c.app, '/status'));
    expect(s.pathways[0].hops[0].ingest.refused).toEqual({ bad_signature: 1 });
    expect(Object.values(s.ingest.unattributed)).toEqual([1]);
  });
});

describe('GET /status/history', () => {
  it('gives the samples after `since`, one column per series', async () => {
    const c = await withRecords([START]);
    await get(c.app, '/steer');
    sample(c);
    c.clock.advance(1000);
    sample(c);
    const all = body(await get(c.app, '/status/history'));
    expect(all.pathways).toEqual(['cdn-a', 'cdn-b', 'cdn-b-east']);
    expect(all.t).toHaveLength(2);
    expect(Object.keys(all.decisions)).toEqual([
      'buffer',
      'floor',
      'share',
      'hold',
      'rank',
      'none',
    ]);
    const total = Object.values(all.decisions as Record<string, number[]>).reduce(
      (sum, v) => sum + v[0]!,
      0,
    );
    expect(total).toBe(1);
    expect(all.first.map((v: number[]) => v[0]).reduce((x: number, y: number) => x + y, 0)).toBe(1);
    expect(all.loads.map((v: number[]) => v[1]).reduce((x: number, y: number) => x + y, 0)).toBe(1);
    const later = body(await get(c.app, `/status/history?since=${all.t[0]}`));
    expect(later.t).toEqual([all.t[1]]);
  });
});

describe('the console routes', () => {
  it('serve the pages no-cache, hashed assets immutable, and nothing when off', async () => {
    const assets = new Map([
      [
        'index.html',
        { bytes: new TextEncoder().encode('<html>'), type: 'text/html; charset=utf-8' },
      ],
      [
        'verify.html',
        { bytes: new TextEncoder().encode('<html>v'), type: 'text/html; charset=utf-8' },
      ],
      [
        'assets/console-AbC123.js',
        { bytes: new Uint8Array([1]), type: 'text/javascript; charset=utf-8' },
      ],
    ]);
    ctx = await demoApp({ console: { enabled: true, auth: null, assets } });
    const page = await get(ctx.app, '/console/');
    expect(page.status).toBe(200);
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(page.headers['content-security-policy']).toMatch(/script-src 'self'/);
    expect(text((await get(ctx.app, '/console/verify')).body)).toBe('<html>v');
    const js = await get(ctx.app, '/console/assets/console-AbC123.js');
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect((await get(ctx.app, '/console/assets/nope.js')).status).toBe(404);
    expect((await get(ctx.app, '/console/../status')).status).toBe(404);
    const redirect = await get(ctx.app, '/console');
    expect(redirect.status).toBe(308);
    expect(redirect.headers.location).toBe('/console/');
    expect((await ctx.app.handle({ method: 'POST', target: '/status', headers: {} })).status).toBe(
      405,
    );
    await ctx.close();
    ctx = await demoApp({ console: { enabled: false, auth: null, assets } });
    expect((await get(ctx.app, '/console/')).status).toBe(404);
    expect((await get(ctx.app, '/status')).status).toBe(404);
  });

  it('without a built console, answer 503 saying so', async () => {
    ctx = await demoApp({ console: { enabled: true, auth: null } });
    const res = await get(ctx.app, '/console/');
    expect(res.status).toBe(503);
    expect(body(res).error).toBe('console_not_built');
  });
});

describe('readableFigure', () => {
  it('is J/GB on basis 1 and J per delivered hour on basis 2, exact to the thousandth', () => {
    // 1 J (10^6 µJ) over 10^9 bytes: 1 J/GB.
    expect(readableFigure(1, 1_000_000n, 1_000_000_000n)).toEqual({
      value: 1,
      unit: 'J/GB',
      text: '1.000 J/GB',
    });
    // 3600 J over one hour (3.6 × 10^9 µs): 3600 J/h.
    expect(readableFigure(2, 3_600_000_000n, 3_600_000_000n).text).toBe('3600.0 J/h');
    // 2/3 J/GB, rounded down to the thousandth.
    expect(readableFigure(1, 2_000_000n, 3_000_000_000n).value).toBe(0.666);
  });
});

describe('why stale, beyond missing periods', () => {
  it('names overlapping records and records that do not tile', async () => {
    ctx = await demoApp({ start: START, console: { enabled: true, auth: null } });
    const c = ctx;
    const edge = c.setup.hops.find((h) => h.pathway === 0 && h.place === 1)!;
    for (const hop of c.setup.hops) {
      // cdn-a's edge hop: one record of two periods over the first and second, one over the
      // second alone (they overlap), none of the third; every other hop signs each period.
      const spans: [bigint, bigint][] =
        hop === edge
          ? [
              [START - 3n * P, START - P],
              [START - 2n * P, START - P],
              [START - P - P / 2n, START + P / 2n],
            ]
          : [
              [START - 3n * P, START - 2n * P],
              [START - 2n * P, START - P],
              [START - P, START],
            ];
      for (const [s0, e0] of spans) {
        const res = await post(c.app, '/records', c.sim.record(hop, s0, e0, 10));
        expect(res.status).toBe(201);
      }
    }
    c.clock.us = START + P;
    const s = body(await get(c.app, '/status'));
    const a = s.pathways[0];
    expect(a.status).toBe('stale');
    expect(a.stale.hops.map((h: { index: number }) => h.index)).toEqual([0]);
    const kinds = a.stale.hops[0].problems.map((p: { kind: string }) => p.kind);
    expect(kinds).toContain('overlapping');
    expect(kinds).toContain('not_tiling');
    expect(kinds).toContain('missing');
    const crossing = a.stale.hops[0].problems.find(
      (p: { kind: string; detail?: string }) =>
        p.kind === 'not_tiling' && /edge/.test(p.detail ?? ''),
    );
    expect(crossing).toMatchObject({
      start: String(START - P - P / 2n),
      end: String(START + P / 2n),
    });
  });
});
