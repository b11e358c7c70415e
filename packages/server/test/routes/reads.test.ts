import { toHex } from '@wai-steering/wire';
import { afterEach, describe, expect, it } from 'vitest';
import { decide, demoApp, get } from '../helpers/setup.js';

type Ctx = Awaited<ReturnType<typeof demoApp>>;
let ctx: Ctx | undefined;
afterEach(async () => {
  await ctx?.close();
  ctx = undefined;
});

const _S = 1_000_000n; // one second, µs

describe('the reads by digest', () => {
  it('serves the policy, the room, the key log and the decisions, cached as they may be', async () => {
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
    // Served for good: by digest they never change.
    expect(p.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    // The key log head may move forward: revalidated.
    expect(k.headers['cache-control']).toBe('no-cache');
    // A decision by digest, GET and HEAD.
    const { hex, bytes } = await decide(ctx);
    const got = await get(ctx.app, `/decisions/${hex}`);
    expect(got.body).toEqual(bytes);
    expect(
      (await ctx.app.handle({ method: 'HEAD', target: `/decisions/${hex}`, headers: {} })).status,
    ).toBe(200);
  });
});
