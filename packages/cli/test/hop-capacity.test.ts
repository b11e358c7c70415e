// The hop agent's capacity reports feeding the real steering server (live policy): an edge hop
// that reports its slots less its sessions moves its pathway's capacity in the policy in force.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CapacityReporter } from '@wai-steering/agent';
import { loadConfig, type RunningServer, startServer } from '@wai-steering/server';
import { HopSimulator, setupDemo } from '@wai-steering/server/testkit';
import { afterAll, describe, expect, it } from 'vitest';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

describe("the agent's capacity reports on the real server", () => {
  const dir = mkdtempSync(join(tmpdir(), 'wai-capacity-'));
  let server: RunningServer | undefined;
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("moves the pathway's capacity in the policy in force, signed by the server", async () => {
    const port = await freePort();
    const setup = setupDemo(dir, { port, budgets: false });
    const config = loadConfig(setup.configPath);
    server = await startServer({
      ...config,
      store: { ...config.store, path: ':memory:' },
      live: {
        pathways: ['cdn-b'],
        capacityThresholdPpm: 100_000,
        latencyThresholdMs: 10,
        maxAhead: 5000,
      },
    });
    const edge = setup.hops.find((h) => h.name === 'cdn-b-edge')!;
    const lines: Record<string, unknown>[] = [];
    const reporter = new CapacityReporter({
      key: edge.key,
      roomId: setup.roomId,
      pathway: 'cdn-b',
      slots: 100,
      expiresUs: 3n * setup.policy.period_us,
      windowUs: setup.policy.period_us,
      computingMs: 20,
      networkMs: 30,
      servers: [server.url],
      log: (l) => lines.push(l),
    });
    const before = server.engine.policyDigest;
    await reporter.report(server.engine.now(), 60);
    expect(lines).toEqual([]);
    expect(server.engine.policy.pathways[1]).toMatchObject({
      id: 'cdn-b',
      capacity: 40,
      latency_ms: 50,
    });
    expect(server.engine.policyDigest).not.toEqual(before);
    // The policy the decisions now name is served by digest.
    const m = (await (await fetch(`${server.url}/steer`)).json()) as Record<string, string>;
    const decision = new Uint8Array(
      await (await fetch(m['science.transaction.wai-decision']!)).arrayBuffer(),
    );
    const named = Buffer.from(decision.subarray(69, 101)).toString('hex');
    expect((await fetch(`${server.url}/policies/${named}`)).status).toBe(200);
    expect(named).toBe(Buffer.from(server.engine.policyDigest).toString('hex'));
  });

  // CATS's GAS is what a site can still take: its slots less the sessions it serves. Those
  // sessions are in the server's load already, so a site of 20 slots serving 7 sessions reports
  // 13, and the pathway's capacity is the load at the report's t plus 13: 20, not 13.
  it('steers a site of 20 slots serving 7 sessions up to 20: its GAS is headroom over the load', async () => {
    const sub = mkdtempSync(join(dir, 'gas-'));
    const port = await freePort();
    // A long period: the window moves seldom while the test runs.
    const setup = setupDemo(sub, { port, budgets: false, periodMs: 30_000, capacity: 1_000 });
    const config = loadConfig(setup.configPath);
    const running = await startServer({
      ...config,
      store: { ...config.store, path: ':memory:' },
      // Sessions count for the whole test, however slow the machine.
      sessions: { ...config.sessions, grace: 600_000 },
      live: {
        pathways: ['cdn-b'],
        capacityThresholdPpm: 0,
        latencyThresholdMs: 10_000,
        maxAhead: 5000,
      },
    });
    const sim = new HopSimulator({
      policy: setup.policy,
      roomId: setup.roomId,
      hops: setup.hops,
      base: running.url,
      clock: () => running.engine.now(),
    });
    try {
      await sim.start();
      expect(sim.refused).toBe(0);
      const first = async (): Promise<string> => {
        const res = await fetch(`${running.url}/steer`);
        expect(res.status).toBe(200);
        const m = (await res.json()) as { 'PATHWAY-PRIORITY': string[] };
        return m['PATHWAY-PRIORITY'][0]!;
      };
      // New sessions until 7 are steered to cdn-b (ranked first; a band takes a few elsewhere).
      let onB = 0;
      for (let i = 0; i < 200 && onB < 7; i++) if ((await first()) === 'cdn-b') onB++;
      expect(onB).toBe(7);
      // The site reports at the start of the next second (as an agent at a period's end): the
      // load stated then counts the 7 sessions.
      const t = (running.engine.now() / 1_000_000n + 1n) * 1_000_000n;
      for (let i = 0; i < 1000 && running.engine.now() < t; i++) {
        await new Promise((r) => setTimeout(r, Number(t - running.engine.now()) / 1000 + 1));
      }
      const edge = setup.hops.find((h) => h.name === 'cdn-b-edge')!;
      const slots = 20;
      const lines: Record<string, unknown>[] = [];
      const reporter = new CapacityReporter({
        key: edge.key,
        roomId: setup.roomId,
        pathway: 'cdn-b',
        slots,
        expiresUs: 3n * setup.policy.period_us,
        windowUs: setup.policy.period_us,
        servers: [running.url],
        log: (l) => lines.push(l),
      });
      expect(reporter.gasOf(7)).toBe(13);
      await reporter.report(t, 7);
      expect(lines).toEqual([]);
      expect(running.engine.policy.pathways[1]).toMatchObject({ id: 'cdn-b', capacity: slots });
      // New sessions fill cdn-b up to its slots, and not one more.
      let more = 0;
      for (let i = 0; i < 80; i++) if ((await first()) === 'cdn-b') more++;
      expect(more).toBe(slots - 7);
      expect(running.engine.loadsNow()[1]).toBe(slots);
    } finally {
      await sim.stop();
      await running.close();
    }
  });
});
