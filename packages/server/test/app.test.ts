import { readDecision, unwrap } from '@wai-steering/wire';
import { afterEach, describe, expect, it } from 'vitest';
import { demoApp, get, text } from './helpers/setup.js';

type Ctx = Awaited<ReturnType<typeof demoApp>>;
let ctx: Ctx | undefined;
afterEach(async () => {
  await ctx?.close();
  ctx = undefined;
});

const _S = 1_000_000n; // one second, µs

function manifestOf(body: string | Uint8Array) {
  return JSON.parse(text(body)) as {
    TTL: number;
    'RELOAD-URI': string;
    'PATHWAY-PRIORITY': string[];
    'science.transaction.wai-decision': string;
  };
}

async function _decide(c: Ctx, query = '', headers: Record<string, string> = {}) {
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

describe('the dispatcher', () => {
  it('answers 404, 405, 414 and CORS preflight', async () => {
    ctx = await demoApp();
    expect((await get(ctx.app, '/nothing/here')).status).toBe(404);
    expect((await ctx.app.handle({ method: 'DELETE', target: '/steer', headers: {} })).status).toBe(
      405,
    );
    expect((await ctx.app.handle({ method: 'PUT', target: '/records', headers: {} })).status).toBe(
      405,
    );
    expect((await get(ctx.app, `/steer?${'a'.repeat(9000)}`)).status).toBe(414);
    const pre = await ctx.app.handle({ method: 'OPTIONS', target: '/steer', headers: {} });
    expect(pre.status).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe('*');
  });

  it('answers 503 (HLS) or 429 (DASH) with Retry-After when the commit queue is full', async () => {
    ctx = await demoApp({ maxQueue: 2 });
    const all = await Promise.all(
      ['_HLS_throughput=1', '_HLS_throughput=2', '_HLS_throughput=3', '_DASH_throughput=4', ''].map(
        (q) => get(ctx!.app, `/steer?${q}`),
      ),
    );
    expect(all.map((r) => r.status)).toEqual([200, 200, 503, 429, 429]);
    expect(all.slice(2).map((r) => r.headers['retry-after'])).toEqual(['1', '1', '1']);
  });
});
