// The hop agent's capacity reports feeding the real steering server (live policy): an edge hop
// that reports its slots less its sessions moves its pathway's capacity in the policy in force.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CapacityReporter } from '@wai-steering/agent';
import { loadConfig, type RunningServer, startServer } from '@wai-steering/server';
import { setupDemo } from '@wai-steering/server/testkit';
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
});
