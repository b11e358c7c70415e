import { createHash, randomBytes } from 'node:crypto';
import { VerifierCache, verifyDecision } from '@wai-steering/verifier';
import { readDecision, toHex, unwrap } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { afterAll, describe, expect, it } from 'vitest';
import { setupDemo } from '../src/demo/setup.js';
import { HopSimulator } from '../src/demo/simulator.js';
import { monotonicClock } from '../src/engine/clock.js';
import { type Child, exited, spawnChild } from './helpers/child.js';
import { freePort, tempDir } from './helpers/setup.js';

const CONCURRENCY = 48;
const MIN_MANIFESTS = 1500;

describe('kill -9 under load', () => {
  const t = tempDir('wai-kill9-');
  let child: Child | undefined;
  afterAll(async () => {
    if (child !== undefined && child.proc.exitCode === null) {
      child.proc.kill('SIGKILL');
      await exited(child.proc);
    }
    t.remove();
  });

  it('loses no decision whose manifest was served', async () => {
    const port = await freePort();
    const setup = setupDemo(t.dir, { port, periodMs: 500, budgets: false });
    child = await spawnChild(setup.configPath);
    const sim = new HopSimulator({
      policy: setup.policy,
      roomId: setup.roomId,
      hops: setup.hops,
      base: child.url,
      clock: monotonicClock(),
    });
    await sim.start();

    // Concurrent steering requests, each from its own session; note every manifest received.
    const served = new Map<string, string>();
    let stop = false;
    let failures = 0;
    const started = Date.now();
    const worker = async (w: number): Promise<void> => {
      for (let i = 0; !stop; i++) {
        const session = randomBytes(16).toString('hex');
        const q =
          i % 2 === 0
            ? `_HLS_pathway=cdn-b&_HLS_throughput=${4_000_000 + w}`
            : '_DASH_pathway=cdn-a';
        try {
          const res = await fetch(`${child!.url}/steer/reload?wai_session=${session}&${q}`);
          const body = await res.text();
          if (res.status === 200) {
            const m = JSON.parse(body)['science.transaction.wai-decision'] as string;
            served.set(m.slice(-64), body);
          }
        } catch {
          failures++;
          if (stop) return;
        }
      }
    };
    const workers = Array.from({ length: CONCURRENCY }, (_, w) => worker(w));
    while (served.size < MIN_MANIFESTS || Date.now() - started < 1500) {
      await new Promise((done) => setTimeout(done, 20));
      if (Date.now() - started > 240_000) throw new Error('the server was too slow to serve');
    }
    // Mid-load: requests are in flight, decisions await their commit.
    child.proc.kill('SIGKILL');
    const killedAt = served.size;
    await exited(child.proc);
    stop = true;
    await Promise.all(workers);
    await sim.stop();
    const noted = new Map(served);
    expect(noted.size).toBeGreaterThanOrEqual(killedAt);
    expect(failures).toBeGreaterThan(0); // the kill did cut requests

    // Restart on the same store: every noted decision is there, byte-exact, and verifies.
    child = await spawnChild(setup.configPath);
    const base = child.url;
    const decisions = new Map<string, Uint8Array>();
    const hexes = [...noted.keys()];
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < hexes.length) {
          const hex = hexes[next++]!;
          const res = await fetch(`${base}/decisions/${hex}`);
          expect(res.status, `decision ${hex}`).toBe(200);
          const bytes = new Uint8Array(await res.arrayBuffer());
          const digest = createHash('sha256')
            .update(bytes.subarray(0, bytes.length - 64))
            .digest('hex');
          expect(digest).toBe(hex);
          decisions.set(hex, bytes);
        }
      }),
    );
    const named = new Set<string>();
    for (const bytes of decisions.values()) {
      for (const p of unwrap(readDecision(bytes)).pathways)
        for (const e of p.evidence) named.add(toHex(e));
    }
    expect(named.size).toBeGreaterThan(0);
    const records: Uint8Array[] = [];
    for (const hex of named) {
      const res = await fetch(`${base}/records/${hex}`);
      expect(res.status).toBe(200);
      records.push(new Uint8Array(await res.arrayBuffer()));
    }
    const first = unwrap(readDecision(decisions.values().next().value!));
    const fetchBytes = async (path: string) =>
      new Uint8Array(await (await fetch(`${base}${path}`)).arrayBuffer());
    const policy = await fetchBytes(`/policies/${toHex(first.policy)}`);
    const room = await fetchBytes(`/rooms/${toHex(first.room)}/descriptor`);
    const keyLog = await fetchBytes(`/rooms/${toHex(first.room)}/key-log`);
    const cache = new VerifierCache();
    for (const [hex, bytes] of decisions) {
      const outcome = verifyDecision(
        { room, keyLog, policy, decision: bytes, records, manifest: noted.get(hex)! },
        { backend: nodeBackend, cache },
      );
      expect(outcome.outcome, `${hex}: ${JSON.stringify(outcome)}`).toBe('accept');
    }
    // And the restarted server decides again.
    expect((await fetch(`${base}/steer`)).status).toBe(200);
    child.proc.kill('SIGTERM');
    await exited(child.proc);
  });
});
