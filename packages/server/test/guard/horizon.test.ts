// Finding 5: records far outside any window were taken (100 years ahead, end = 2^64 − 1, epoch
// 0, 5 000 of one hop for one period), and 10 000 future records grew the evidence index. Now a
// record no window the server will use can name is refused `outside_horizon` (422), and one hop
// has at most `records.max_per_period` records for one period (409 `too_many_records`).
import { afterEach, describe, expect, it } from 'vitest';
import { RecordHorizon } from '../../src/guard/horizon.js';
import { demoApp, post, text } from '../helpers/setup.js';

type Ctx = Awaited<ReturnType<typeof demoApp>>;
let ctx: Ctx | undefined;
afterEach(async () => {
  await ctx?.close();
  ctx = undefined;
});

const S = 1_000_000n;
const YEAR = 365n * 86_400n * S;

async function postSpan(c: Ctx, start: bigint, end: bigint, hop = 0) {
  const bytes = c.sim.record(c.setup.hops[hop]!, start, end, 10);
  const res = await post(c.app, '/records', bytes);
  return { status: res.status, body: JSON.parse(text(res.body)) as Record<string, unknown> };
}

describe("the records' horizon", () => {
  it('refuses far-future, ancient, epoch-0 and over-long records with outside_horizon', async () => {
    ctx = await demoApp();
    const now = ctx.clock.us;
    const P = ctx.setup.policy.period_us;
    const W = ctx.setup.policy.window_us;
    const end = (now / P) * P;
    const cases: [string, bigint, bigint][] = [
      ['100 years ahead', end + 100n * YEAR, end + 100n * YEAR + P],
      ['end = 2^64 − 1', 2n ** 64n - 1n - P, 2n ** 64n - 1n],
      ['epoch 0', 0n, P],
      ['older than retention (8 days)', end - 8n * 86_400n * S - P, end - 8n * 86_400n * S],
      ['longer than the window', end - W - P, end],
      ['an hour ahead', end + 3600n * S, end + 3600n * S + P],
    ];
    for (const [what, start, stop] of cases) {
      const r = await postSpan(ctx, start, stop);
      expect({ what, status: r.status, error: r.body.error }).toEqual({
        what,
        status: 422,
        error: 'outside_horizon',
      });
      expect(typeof r.body.message).toBe('string');
    }
    // What a window may name is taken: this period, a window's length, slightly ahead.
    expect((await postSpan(ctx, end - P, end)).status).toBe(201);
    expect((await postSpan(ctx, end - W, end, 1)).status).toBe(201);
    expect((await postSpan(ctx, end, end + P, 2)).status).toBe(201);
    expect(ctx.engine.metrics.render()).toMatch(
      /wai_steering_records_horizon_refused_total\{error="outside_horizon"\} 6/,
    );
  });

  it('says how far outside in readable durations, with µs only where they would read the same', () => {
    const h = new RecordHorizon({
      periodUs: 2n * S,
      windowUs: 6n * S,
      maxAheadUs: 60n * S,
      retentionUs: 86_400n * S,
      maxPerPeriod: 4,
    });
    const hop = new Uint8Array(32);
    const now = 1_796_112_000_000_000n;
    const at = (start: bigint, end: bigint) => h.check({ hop, start, end }, now)?.message;
    const far = now + 2_614_513_321_766n;
    expect(at(far - 2n * S, far)).toBe(
      'the record ends 30 d 6 h after the room clock, more than 1 min',
    );
    expect(at(now + 60n * S - S, now + 60n * S + 1n)).toBe(
      'the record ends 1 min (60000001 µs) after the room clock, more than 1 min',
    );
    expect(at(now - 8n * 86_400n * S - 2n * S, now - 8n * 86_400n * S)).toBe(
      "the record ended 8 d ago, before the records' retention (1 d)",
    );
    expect(at(now - 6n * S - 1n, now)).toBe(
      'the record spans 6 s (6000001 µs), more than the window W (6 s): no window names it',
    );
    expect(at(now - 7_500_000n, now)).toBe(
      'the record spans 7.5 s, more than the window W (6 s): no window names it',
    );
  });

  it('bounds the records of one hop for one period, and keeps the index from growing', async () => {
    ctx = await demoApp();
    const P = ctx.setup.policy.period_us;
    const end = (ctx.clock.us / P) * P;
    const before = ctx.engine.index.records.size;
    const statuses = new Map<number, number>();
    for (let i = 0; i < 2000; i++) {
      const r = await postSpan(ctx, end - P, end);
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      if (r.status === 409) expect(r.body.error).toBe('too_many_records');
    }
    // A second record for the same hop and span is kept (§5.2 decides with it), not thousands.
    expect(statuses.get(201)).toBe(4);
    expect(statuses.get(409)).toBe(1996);
    expect(ctx.engine.index.records.size).toBe(before + 4);
    // Another hop, or the next period, has its own bound.
    expect((await postSpan(ctx, end - P, end, 1)).status).toBe(201);
    expect((await postSpan(ctx, end, end + P)).status).toBe(201);
    // Future records (2 000 here, one per period up to the horizon's bound and past it): only
    // the ones within a minute of the clock are taken.
    let taken = 0;
    for (let i = 2n; i < 2002n; i++) {
      if ((await postSpan(ctx, end + (i - 1n) * P, end + i * P, 3)).status === 201) taken++;
    }
    expect(taken).toBe(Number((60n * S) / P) - 1);
  });

  it('forgets the counts of periods past retention', () => {
    const h = new RecordHorizon({
      periodUs: 10n,
      windowUs: 30n,
      maxAheadUs: 10n,
      retentionUs: 100n,
      maxPerPeriod: 1,
    });
    const hop = new Uint8Array(32);
    expect(h.check({ hop, start: 990n, end: 1000n }, 1000n)).toBeUndefined();
    h.taken({ hop, start: 990n, end: 1000n });
    expect(h.check({ hop, start: 990n, end: 1000n }, 1000n)?.error).toBe('too_many_records');
    h.prune(2000n);
    expect(h.size).toBe(0);
  });
});
