// `/status`'s `why` of a pathway that has no figure and is not stale: the hop that signed the
// unmetered marker; the edge hops that delivered nothing (a hop agent with `traffic: none`),
// with the joules their records hold, which §5.4 states as 0.
import { readHopRecord, unwrap } from '@wai-steering/wire';
import { afterEach, describe, expect, it } from 'vitest';
import { demoApp, get, post, text } from '../helpers/setup.js';

type Ctx = Awaited<ReturnType<typeof demoApp>>;
let ctx: Ctx | undefined;
afterEach(async () => {
  await ctx?.close();
  ctx = undefined;
});

const START = 1_800_000_000_000_000n; // a multiple of P = 2 s
const P = 2_000_000n;

describe('/status: why a pathway that is not stale has no figure', () => {
  it('names the unmetered hop, and the edge hops that delivered nothing with the joules held', async () => {
    ctx = await demoApp({ start: START, console: { enabled: true, auth: null } });
    let joules = 0n;
    for (const end of [START - 2n * P, START - P, START]) {
      for (const hop of ctx.setup.hops) {
        // cdn-a's hops deliver nothing (an agent with traffic: none states no bytes).
        const sessions = hop.name.startsWith('cdn-a') ? 0 : 10;
        const bytes = ctx.sim.record(hop, end - P, end, sessions);
        const res = await post(ctx.app, '/records', bytes);
        expect(res.status).toBe(201);
        if (hop.name.startsWith('cdn-a')) joules += unwrap(readHopRecord(bytes)).joules;
      }
    }
    ctx.clock.us = START + P / 4n + 1000n;
    const s = JSON.parse(text((await get(ctx.app, '/status')).body));
    const [a, b, east] = s.pathways;
    expect([a.status, b.status, east.status]).toEqual(['empty', 'figure', 'unmetered']);
    expect(b.why).toBeNull();
    expect(a.joules_uj).toBe('0');
    expect(a.why.text).toMatch(
      /^its edge hops' records state no media bytes sent out over the window \(D = 0\).*traffic: none \(the default\)/,
    );
    expect(a.why.hops.map((h: { place: string }) => h.place)).toEqual(['edge']);
    // The joules the records hold: the sum of what each of cdn-a's records states.
    expect(joules > 0n).toBe(true);
    expect(a.why.records_joules_uj).toBe(String(joules));
    expect(east.why.text).toMatch(/unmetered marker/);
    expect(east.why.hops).toEqual([expect.objectContaining({ place: 'interior' })]);
    expect(east.stale).toBeNull();
  });
});
