// The operator's routes: `/healthz` (ok, closing, degraded with its causes) and `/metrics`.
import { afterEach, describe, expect, it } from 'vitest';
import { demoApp, get, text } from '../helpers/setup.js';

type Ctx = Awaited<ReturnType<typeof demoApp>>;
let ctx: Ctx | undefined;
afterEach(async () => {
  await ctx?.close();
  ctx = undefined;
});

describe('/healthz', () => {
  it('is 200 ok, 503 degraded with its causes, and 503 closing', async () => {
    ctx = await demoApp();
    const ok = await get(ctx.app, '/healthz');
    expect([ok.status, JSON.parse(text(ok.body))]).toEqual([200, { status: 'ok' }]);
    ctx.engine.health.fail('commit', 'group commits fail: SQLITE_BUSY');
    const degraded = await get(ctx.app, '/healthz');
    expect(degraded.status).toBe(503);
    expect(JSON.parse(text(degraded.body))).toMatchObject({
      status: 'degraded',
      causes: [{ cause: 'commit', message: 'group commits fail: SQLITE_BUSY', errors: 1 }],
    });
    expect((await ctx.app.handle({ method: 'HEAD', target: '/healthz', headers: {} })).status).toBe(
      503,
    );
    await ctx.engine.close();
    const closing = await get(ctx.app, '/healthz');
    expect([closing.status, JSON.parse(text(closing.body))]).toEqual([503, { status: 'closing' }]);
  });
});

describe('/metrics', () => {
  it("is the engine's and the routes' metrics in Prometheus text, not cached", async () => {
    ctx = await demoApp();
    await get(ctx.app, '/steer');
    const res = await get(ctx.app, '/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    const body = text(res.body);
    expect(body).toMatch(/^wai_steering_http_requests_total\{route="steering",code="200"\} 1$/m);
    expect(body).toContain('wai_steering_decisions_total{reason=');
    expect(body).toContain('wai_steering_request_duration_seconds_bucket{le="+Inf"} 1');
  });
});
