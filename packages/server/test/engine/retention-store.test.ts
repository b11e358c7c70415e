import { afterEach, describe, expect, it } from 'vitest';
import { decide, demoApp, get, postPeriods } from '../helpers/setup.js';

type Ctx = Awaited<ReturnType<typeof demoApp>>;
let ctx: Ctx | undefined;
afterEach(async () => {
  await ctx?.close();
  ctx = undefined;
});

const S = 1_000_000n; // one second, µs

describe('retention', () => {
  it('prunes decisions by age, and records only when no kept decision names them', async () => {
    ctx = await demoApp();
    const t0 = ctx.clock.us;
    const early = await postPeriods(ctx, [t0 - 4n * S, t0 - 2n * S, t0]);
    ctx.clock.advance(1000);
    const old = await decide(ctx);
    expect(old.decision.pathways[0]!.evidence.length).toBe(2 * 3);
    // An hour later: new records, a new decision.
    ctx.clock.advance(3_600_000);
    const t1 = (ctx.clock.us / (2n * S)) * 2n * S;
    const late = await postPeriods(ctx, [t1 - 4n * S, t1 - 2n * S, t1]);
    ctx.clock.advance(1000);
    const fresh = await decide(ctx);
    // Records kept 1 minute, decisions 2 hours: every record named by the old decision stays.
    let r = await ctx.engine.prune(60_000, 7_200_000);
    expect(r.decisions).toBe(0);
    expect(r.records).toBe(0);
    for (const hex of early) expect((await get(ctx.app, `/records/${hex}`)).status).toBe(200);
    // Decisions kept 30 minutes: the old decision goes, and with it the records it named.
    r = await ctx.engine.prune(60_000, 1_800_000);
    expect(r.decisions).toBe(1);
    expect(r.records).toBe(early.length);
    expect((await get(ctx.app, `/decisions/${old.hex}`)).status).toBe(404);
    for (const hex of early) expect((await get(ctx.app, `/records/${hex}`)).status).toBe(404);
    expect((await get(ctx.app, `/decisions/${fresh.hex}`)).status).toBe(200);
    for (const hex of late) expect((await get(ctx.app, `/records/${hex}`)).status).toBe(200);
    // Decisions kept 1 second: everything named goes once the records are old enough too.
    // Retention counts back from the newest decision and record kept, not the clock alone: newer
    // ones come first.
    ctx.clock.advance(120_000);
    const t2 = (ctx.clock.us / (2n * S)) * 2n * S;
    await postPeriods(ctx, [t2 - 4n * S, t2 - 2n * S, t2]);
    ctx.clock.advance(1000);
    await decide(ctx);
    ctx.clock.advance(2000);
    r = await ctx.engine.prune(60_000, 1000);
    expect(r.decisions).toBe(1);
    expect(r.records).toBe(late.length);
  });
});

describe('retention and the window in use', () => {
  it('keeps records the current window may name, however short their retention', async () => {
    ctx = await demoApp();
    const t0 = ctx.clock.us;
    const digests = await postPeriods(ctx, [t0 - 4n * S, t0 - 2n * S, t0]);
    ctx.clock.advance(1000);
    const r = await ctx.engine.prune(1, 1);
    expect(r.records).toBe(0);
    const d = await decide(ctx);
    expect(d.decision.pathways[0]!.evidence.length).toBe(6);
    for (const hex of digests) expect((await get(ctx.app, `/records/${hex}`)).status).toBe(200);
  });
});
