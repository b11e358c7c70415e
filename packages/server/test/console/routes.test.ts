// The console's answers: `/status` and its history behind the configured credentials (the same
// check as the admin route's), its pages, the verifier page and hashed assets never protected.
import { afterEach, describe, expect, it } from 'vitest';
import type { ConsoleAssets } from '../../src/console/assets.js';
import { type ConsoleAuth, ConsoleRoutes, engineStatusSource } from '../../src/console/routes.js';
import { demoApp, get } from '../helpers/setup.js';

type Ctx = Awaited<ReturnType<typeof demoApp>>;
let ctx: Ctx | undefined;
afterEach(async () => {
  await ctx?.close();
  ctx = undefined;
});

const page = (text: string) => ({
  bytes: new TextEncoder().encode(text),
  type: 'text/html; charset=utf-8',
});
const ASSETS: ConsoleAssets = new Map([
  ['index.html', page('<p>console</p>')],
  ['verify.html', page('<p>verify</p>')],
  ['energy.html', page('<p>energy</p>')],
  ['assets/main-abc123.js', { bytes: new Uint8Array([1]), type: 'text/javascript; charset=utf-8' }],
]);
const TOKEN = 'console-token-0123456789';

async function routes(auth: ConsoleAuth, assets: ConsoleAssets | undefined = ASSETS) {
  ctx = await demoApp();
  return new ConsoleRoutes(
    { enabled: true, auth, ...(assets === undefined ? {} : { assets }) },
    engineStatusSource(ctx.engine, ctx.activity),
  );
}

const json = (r: { body: string | Uint8Array }) => JSON.parse(String(r.body));

describe('ConsoleRoutes', () => {
  it('serves /status and its history behind a bearer token, with its challenge', async () => {
    const c = await routes({ bearer: TOKEN });
    const none = c.status('/status', '', {});
    expect([none.status, none.headers['www-authenticate']]).toEqual([
      401,
      'Bearer realm="wai-steering console", charset="UTF-8"',
    ]);
    const ok = c.status('/status', '', { authorization: `bearer ${TOKEN}` });
    expect(ok.status).toBe(200);
    expect(json(ok).policy.server_uri).toBe(ctx!.setup.policy.server_uri);
    ctx!.activity.sample(10, [1, 2, 3]);
    ctx!.activity.sample(11, [1, 2, 3]);
    const history = c.status('/status/history', 'since=10', { authorization: `Bearer ${TOKEN}` });
    expect(json(history)).toMatchObject({ step_s: 1, t: [11] });
    expect(c.status('/status/other', '', {}).status).toBe(404);
  });

  it('asks for basic credentials on the operator page too, never on the verifier or Energy page', async () => {
    const c = await routes({ basic: { user: 'op', password: 'a-password-1' } });
    expect(c.page('/console/', {}).status).toBe(401);
    const basic = `Basic ${Buffer.from('op:a-password-1').toString('base64')}`;
    const index = c.page('/console/', { authorization: basic });
    expect([index.status, index.headers['cache-control']]).toEqual([200, 'no-cache']);
    expect(index.headers['content-security-policy']).toMatch(/default-src 'self'/);
    expect(c.page('/console/verify', {}).status).toBe(200);
    // The Energy page reads the public account: no credentials.
    for (const path of ['/console/energy', '/console/energy.html']) {
      const energy = c.page(path, {});
      expect([energy.status, new TextDecoder().decode(energy.body as Uint8Array)]).toEqual([
        200,
        '<p>energy</p>',
      ]);
    }
    const asset = c.page('/console/assets/main-abc123.js', {});
    expect([asset.status, asset.headers['cache-control']]).toEqual([
      200,
      'public, max-age=31536000, immutable',
    ]);
    expect(c.page('/console/assets/none.js', {}).status).toBe(404);
    expect(c.page('/console/../secret', {}).status).toBe(404);
  });

  it('redirects /console to /console/, and says when the console is not built', async () => {
    const c = await routes(null, new Map());
    const r = c.page('/console', {});
    expect([r.status, r.headers.location]).toEqual([308, '/console/']);
    const unbuilt = c.page('/console/', {});
    expect([unbuilt.status, json(unbuilt).error]).toEqual([503, 'console_not_built']);
  });

  it('answers 404 for its paths when the console is off (no rows)', async () => {
    ctx = await demoApp({ console: { enabled: false, auth: null } });
    expect((await get(ctx.app, '/status')).status).toBe(404);
    expect((await get(ctx.app, '/console/')).status).toBe(404);
  });
});
