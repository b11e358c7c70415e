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
