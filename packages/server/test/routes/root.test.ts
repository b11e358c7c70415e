// `/`: where a person's browser goes first. With the console on, a redirect to it; with the
// console off, a 404 that says where the server answers; the body names the paths either way.
import { afterEach, describe, expect, it } from 'vitest';
import { demoApp, get, text } from '../helpers/setup.js';

type Ctx = Awaited<ReturnType<typeof demoApp>>;
let ctx: Ctx | undefined;
afterEach(async () => {
  await ctx?.close();
  ctx = undefined;
});

describe('GET /', () => {
  it('redirects to the console (relative, for a proxy under a prefix) when it is on', async () => {
    ctx = await demoApp({ console: { enabled: true, auth: null } });
    const res = await get(ctx.app, '/');
    expect([res.status, res.headers.location]).toEqual([302, 'console/']);
    expect(JSON.parse(text(res.body))).toEqual({
      message: 'the operator console is at /console/',
      steering: '/steer',
      decisions: '/decisions/',
      console: '/console/',
      verifier: '/console/verify',
      health: '/healthz',
      metrics: '/metrics',
    });
    const head = await ctx.app.handle({ method: 'HEAD', target: '/', headers: {} });
    expect(head.status).toBe(302);
    const post = await ctx.app.handle({ method: 'POST', target: '/', headers: {} });
    expect([post.status, post.headers.allow]).toEqual([405, 'GET, HEAD']);
  });

  it('is a 404 naming the steering path when the console is off', async () => {
    ctx = await demoApp({ console: { enabled: false, auth: null } });
    const res = await get(ctx.app, '/');
    expect(res.status).toBe(404);
    const body = JSON.parse(text(res.body));
    expect(body).toMatchObject({ error: 'not_found', steering: '/steer', console: null });
    expect(body.message).toBe(
      'no page here: this steering server answers steering requests at /steer (the console is off: console.enabled)',
    );
  });
});
