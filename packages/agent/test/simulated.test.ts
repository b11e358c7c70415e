// The demo's hops as agents: each a HopAgent with a SimulatedSource, on the demo's clock,
// posting to the server's URL; the same code path as a hop in production.
import { join } from 'node:path';
import { CLASS } from '@wai-steering/wire';
import { afterEach, describe, expect, it } from 'vitest';
import {
  HopAgent,
  metricsText,
  SimulatedHops,
  SimulatedSource,
  serveAgentHttp,
} from '../src/index.js';
import { ManualClock, makeRoom, tempDir } from './helpers/room.js';
import { TestSteeringServer } from './helpers/steering.js';

const P = 2_000_000n;
const B0 = 1_800_000_000_000_000n;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('simulated hops', () => {
  it('cut the history at start, then every period; each class as given', async () => {
    const room = makeRoom([['energy/OnChipCounter', 'live/hop'], ['live/hop']]);
    const server = new TestSteeringServer(room.ctx);
    await server.up(0);
    cleanups.push(() => server.down());
    const clock = new ManualClock(B0 + 300_000n);
    const agents = [
      { key: 0, cls: CLASS.OnChipCounter, place: 1 as const },
      { key: 1, cls: 0, place: 2 as const },
    ].map(({ key, cls, place }) => {
      const sim = new SimulatedSource({
        class: cls,
        place,
        nanojoulesPerByte: 48,
        idleWatts: 20,
        sessions: () => 100,
        noise: 0,
      });
      const agent = new HopAgent({
        room: room.ctx,
        key: room.hops[key]!,
        period: P,
        energy: sim.energy,
        traffic: sim,
        servers: [server.url],
        spool: join(tempDir(), 'spool'),
        clock: clock.now,
        monotonic: clock.now,
        history: 3,
        manual: true,
        cutDelay: 0n,
        log: () => {},
      });
      cleanups.push(() => agent.stop());
      return agent;
    });
    for (const a of agents) await a.start();
    clock.set(B0 + P + 1000n);
    for (const a of agents) await a.poll();
    for (const a of agents) expect(await a.delivered()).toBe(true);
    const of = (i: number) =>
      server.records
        .filter((r) => Buffer.from(r.hop).equals(Buffer.from(room.hops[i]!.publicKey)))
        .map((r) => [(r.start - B0) / P, r.class]);
    expect(of(0)).toEqual([-3n, -2n, -1n, 0n].map((k) => [k, CLASS.OnChipCounter]));
    expect(of(1)).toEqual([-3n, -2n, -1n, 0n].map((k) => [k, 0]));
    const edge = server.records.find((r) => r.class === CLASS.OnChipCounter)!;
    // 100 sessions × 4.2 Mb/s × 2 s, and 20 W × 2 s + 48 nJ for each byte sent.
    const bytes = 100n * 525_000n * 2n;
    expect(edge.tracks.find((t) => t.direction === 2 && t.track === 1)!.bytes).toBe(bytes);
    const out = bytes + bytes / 200n;
    expect(edge.joules).toBe(40_000_000n + (out * 48n) / 1000n);
    expect(edge.subscriber_us.reduce((a, b) => a + b, 0n)).toBe(100n * P);

    // Its own endpoints.
    const http = await serveAgentHttp(agents[0]!, '127.0.0.1', 0);
    cleanups.push(() => new Promise((r) => http.close(() => r())));
    const port = (http.address() as { port: number }).port;
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toBe(metricsText(agents[0]!));
    expect(metrics).toContain('wai_agent_periods_total{class="OnChipCounter"} 4');
    expect(metrics).toContain(`wai_agent_records_sent_total{server="${server.url}"} 4`);
    expect(metrics).toContain(`wai_agent_records_pending{server="${server.url}"} 0`);
    const health = await fetch(`http://127.0.0.1:${port}/health`);
    expect(health.status).toBe(200);
    // Three periods later with nothing cut, it is not healthy.
    clock.set(B0 + 4n * P);
    const late = await fetch(`http://127.0.0.1:${port}/health`);
    expect(late.status).toBe(503);
    expect(await late.json()).toMatchObject({ ok: false, lastEnd: String(B0 + P) });
  });
});

describe("SimulatedHops (the demo's hops)", () => {
  it('run each hop as an agent on the real clock: the history, then every period, all taken', async () => {
    const room = makeRoom([
      ['energy/ModelBased', 'live/hop'],
      ['live/hop'],
      ['energy/OnChipCounter', 'live/hop'],
    ]);
    const server = new TestSteeringServer(room.ctx);
    await server.up(0);
    cleanups.push(() => server.down());
    const Pd = 500_000n;
    const periods: [bigint, readonly string[], readonly string[]][] = [];
    let fourth: () => void = () => {};
    const fourPeriods = new Promise<void>((r) => {
      fourth = r;
    });
    const hops = new SimulatedHops({
      room: room.ctx,
      period: Pd,
      lag: Pd / 2n,
      hops: [
        {
          name: 'a-edge',
          key: room.hops[0]!,
          pathway: 0,
          place: 1,
          class: 2,
          nanojoulesPerByte: 60,
          idleWatts: 30,
        },
        {
          name: 'a-shield',
          key: room.hops[1]!,
          pathway: 0,
          place: 2,
          class: 0,
          nanojoulesPerByte: 0,
          idleWatts: 0,
          // It sends its edge what the edge's cache misses: a twentieth of what is delivered.
          share: 1 / 20,
        },
        {
          name: 'b-edge',
          key: room.hops[2]!,
          pathway: 1,
          place: 1,
          class: 4,
          nanojoulesPerByte: 40,
          idleWatts: 20,
        },
      ],
      servers: [server.url],
      spoolDir: join(tempDir(), 'spools'),
      audience: (p) => (p === 0 ? 120 : 90),
      history: 2,
      onPeriod: (end, refused, pending) => {
        if (periods.push([end, refused, pending]) === 4) fourth();
      },
    });
    cleanups.push(() => hops.stop());
    await hops.start();
    await fourPeriods;
    // A period's line may be written before its record is taken (a busy machine: after the
    // lag): what the hops cut so far reaches the server before they stop.
    for (const a of hops.agents) expect(await a.delivered()).toBe(true);
    await hops.stop();
    expect(periods.length).toBeGreaterThanOrEqual(4);
    expect(periods.every(([, refused]) => refused.length === 0)).toBe(true);
    expect(hops.refused).toBe(0);
    expect(hops.posted).toBe(server.records.length);
    for (const [i, key] of room.hops.entries()) {
      const mine = server.records.filter((r) =>
        Buffer.from(r.hop).equals(Buffer.from(key.publicKey)),
      );
      for (let j = 1; j < mine.length; j++) expect(mine[j]!.start).toBe(mine[j - 1]!.end);
      expect(mine.every((r) => r.class === [2, 0, 4][i])).toBe(true);
      expect(mine.length).toBeGreaterThanOrEqual(3);
    }
    // One link counted at both ends: what the shield sent its edge each period is what the edge
    // received, a twentieth of what the edge delivered (its cache served the rest).
    const media = (r: (typeof server.records)[number], direction: number) =>
      r.tracks.find((t) => t.kind === 1 && t.direction === direction)!.bytes;
    const of = (k: number) =>
      server.records.filter((r) => Buffer.from(r.hop).equals(Buffer.from(room.hops[k]!.publicKey)));
    let compared = 0;
    for (const edge of of(0)) {
      const shield = of(1).find((r) => r.start === edge.start);
      if (shield === undefined) continue;
      compared++;
      expect(media(edge, 1)).toBe(media(shield, 2));
      const delivered = media(edge, 2);
      expect(media(shield, 2)).toBe(BigInt(Math.round(Number(delivered) / 20)));
    }
    expect(compared).toBeGreaterThanOrEqual(3);
  });
});
