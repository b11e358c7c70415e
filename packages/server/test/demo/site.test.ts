// The demo's filling site: one slot fewer each report, signed by the pathway's edge hop.
import { afterEach, describe, expect, it } from 'vitest';
import { SiteSimulator } from '../../src/demo/site.js';
import { createHttpServer, listen } from '../../src/http.js';
import { demoApp, freePort } from '../helpers/setup.js';

type Ctx = Awaited<ReturnType<typeof demoApp>>;
let ctx: Ctx | undefined;
afterEach(async () => {
  await ctx?.close();
  ctx = undefined;
});

describe('SiteSimulator', () => {
  it('reports one slot fewer each time, each taken by the server', async () => {
    ctx = await demoApp({
      live: { pathways: new Set([1]), capacityThresholdPpm: 0, latencyThresholdMs: 10 },
    });
    const http = createHttpServer(ctx.app);
    const base = await listen(http, '127.0.0.1', await freePort());
    try {
      const seen: [number, number][] = [];
      const site = new SiteSimulator({
        base,
        roomId: ctx.setup.roomId,
        pathway: 'cdn-b',
        hop: ctx.setup.hops.find((h) => h.pathway === 1 && h.place === 1)!,
        periodUs: 50_000n,
        // Each report a millisecond after the one before: each newer than the last.
        clock: () => {
          ctx!.clock.us += 1000n;
          return ctx!.clock.us;
        },
        slots: 3,
        onReport: (gas, status) => seen.push([gas, status]),
      });
      site.start();
      await expect.poll(() => seen.length, { timeout: 20_000 }).toBeGreaterThanOrEqual(4);
      site.stop();
      expect(seen.slice(0, 4).map(([gas]) => gas)).toEqual([3, 2, 1, 0]);
      expect(seen.map(([, status]) => status)).toEqual(seen.map(() => 201));
    } finally {
      await new Promise((r) => http.close(r));
    }
  });

  it('reports its slots less the sessions it serves (GAS is headroom)', async () => {
    ctx = await demoApp();
    const seen: number[] = [];
    const site = new SiteSimulator({
      base: 'http://127.0.0.1:9', // nothing listens: the report's GAS is what is looked at
      roomId: ctx.setup.roomId,
      pathway: 'cdn-b',
      hop: ctx.setup.hops.find((h) => h.pathway === 1 && h.place === 1)!,
      periodUs: 60_000_000n,
      clock: () => ctx!.clock.us,
      slots: 20,
      sessions: () => 7,
      onReport: (gas) => seen.push(gas),
    });
    site.start();
    await expect.poll(() => seen.length, { timeout: 20_000 }).toBeGreaterThanOrEqual(1);
    site.stop();
    expect(seen[0]).toBe(20 - 7);
  });
});
