// The demo's hops: each record signed for its period, of the demo's room, verified as any hop's.
import { openHopRecord } from '@wai-steering/verifier';
import { nodeBackend } from '@wai-steering/wire/node';
import { afterEach, describe, expect, it } from 'vitest';
import { demoAudience, HopSimulator } from '../../src/demo/simulator.js';
import { demoApp } from '../helpers/setup.js';

type Ctx = Awaited<ReturnType<typeof demoApp>>;
let ctx: Ctx | undefined;
afterEach(async () => {
  await ctx?.close();
  ctx = undefined;
});

describe('HopSimulator', () => {
  it("signs each hop's record of a period, which the room's verification takes", async () => {
    ctx = await demoApp();
    const sim = new HopSimulator({
      policy: ctx.setup.policy,
      roomId: ctx.setup.roomId,
      hops: ctx.setup.hops,
      base: 'http://127.0.0.1:1',
      clock: ctx.clock.now,
    });
    const P = ctx.setup.policy.period_us;
    const end = (ctx.clock.us / P) * P;
    for (const hop of ctx.setup.hops) {
      const opened = openHopRecord(ctx.materials.room, sim.record(hop, end - P, end, 20), {
        backend: nodeBackend,
      });
      expect(opened.ok && [opened.value.record.start, opened.value.record.end]).toEqual([
        end - P,
        end,
      ]);
      // The unmetered hop signs the unmetered marker (class 0).
      if (opened.ok) expect(opened.value.record.class).toBe(hop.class);
    }
  });
});

describe('demoAudience', () => {
  it('is the base audience within ±10 %, plus the sessions steered there, at least 1', () => {
    for (let i = 0; i < 200; i++) {
      const a = demoAudience(0, 0);
      expect(a).toBeGreaterThanOrEqual(108);
      expect(a).toBeLessThanOrEqual(132);
      expect(demoAudience(9, 0)).toBeGreaterThanOrEqual(27);
    }
    const steered = demoAudience(2, 1000);
    expect(steered).toBeGreaterThanOrEqual(1040);
  });
});
