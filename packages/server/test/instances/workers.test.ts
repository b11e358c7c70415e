/**
 * `serve --workers 2` on SQLite: two worker processes sharing the socket, the file and the
 * loads. Every manifest verifies from what the server serves; a decision states the other
 * worker's sessions; a record posted through one worker is named by every decision of a window
 * that moved after it was acknowledged; a worker killed with `kill -9` under load is started
 * again and no acknowledged decision is lost.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inWindow, windowAt } from '@wai-steering/evidence';
import { readDecision, toHex, unwrap } from '@wai-steering/wire';
import { afterAll, describe, expect, it } from 'vitest';
import { setupDemo } from '../../src/demo/setup.js';
import { monotonicClock } from '../../src/engine/clock.js';
import { type Child, exited, spawnChild } from '../helpers/child.js';
import {
  type Posted,
  postRecords,
  type Served,
  sessions,
  steer,
  verifyFrom,
  writeSessionSecret,
} from '../helpers/load.js';
import { freePort, tempDir } from '../helpers/setup.js';

const SESSIONS = 120;

/** The live workers' pids, asked of the primary. */
async function pidsOf(child: Child, not: number[] = []): Promise<number[]> {
  // A worker that died within two seconds of its start is started again a second later; on a
  // busy machine later still: a generous ceiling.
  for (let i = 0; i < 1200; i++) {
    const seen = child.stdout().length;
    child.proc.stdin!.write('\n');
    await new Promise((r) => setTimeout(r, 50));
    const m = /PIDS (\S*)\n/.exec(child.stdout().slice(seen));
    const pids = m === null ? [] : m[1]!.split(',').filter(Boolean).map(Number);
    if (pids.length === 2 && pids.every((p) => !not.includes(p))) return pids;
  }
  throw new Error('the workers were not started again');
}

describe('serve --workers 2 on SQLite', () => {
  const t = tempDir('wai-workers-');
  let child: Child | undefined;
  afterAll(async () => {
    if (child !== undefined && child.proc.exitCode === null) {
      child.proc.kill('SIGTERM');
      await exited(child.proc);
    }
    t.remove();
  });

  // A generous ceiling: on a machine whose cores are busy this takes minutes, not seconds.
  it('shares the socket, the store and the loads, and restarts a worker killed', {
    timeout: 600_000,
  }, async () => {
    const setup = setupDemo(t.dir, { port: 8080, periodMs: 500, budgets: false });
    const path = join(t.dir, 'config-workers.json');
    const config = JSON.parse(readFileSync(setup.configPath, 'utf8'));
    // One session secret for the workers (as for the instances of a deployment).
    const secret = writeSessionSecret(join(t.dir, 'session.secret'));
    writeFileSync(
      path,
      JSON.stringify({
        ...config,
        listen: { host: '127.0.0.1', port: await freePort() },
        sessions: { ...config.sessions, secret: 'session.secret' },
      }),
    );
    child = await spawnChild(path, 2);
    const base = child.url;
    const pids = await pidsOf(child);
    const clock = monotonicClock();
    const policy = setup.policy;
    const posted: Posted[] = [];
    const hops = postRecords(setup, base, clock, posted);
    await hops.ready;

    const ids = sessions(SESSIONS, secret);
    const served = new Map<string, Served>();
    const started = Date.now();
    const phase1 = await steer(base, ids, served, {
      concurrency: 12,
      stop: () => served.size >= 800 && Date.now() - started > 2000,
      maxMs: 240_000,
    });
    expect(phase1.failures, phase1.reasons.join('\n')).toBe(0);

    // Loads: once quiet, each session was steered on one connection, so by one worker: a
    // decision counts them all, the other worker's too, once a heartbeat of each has passed
    // (however late a busy machine makes them).
    const stated = async (): Promise<number> => {
      const probe = await fetch(`${base}/steer/reload?wai_session=${sessions(1, secret)[0]}`);
      const digest = (
        JSON.parse(await probe.text())['science.transaction.wai-decision'] as string
      ).slice(-64);
      const bytes = new Uint8Array(
        await (await fetch(`${base}/decisions/${digest}`)).arrayBuffer(),
      );
      return unwrap(readDecision(bytes))
        .pathways.map((p) => p.load)
        .reduce((x, y) => x + y, 0);
    };
    let total = await stated();
    for (let i = 0; i < 1200 && total !== SESSIONS; i++) {
      expect(total).toBeLessThanOrEqual(SESSIONS);
      await new Promise((r) => setTimeout(r, 50));
      total = await stated();
    }
    expect(total).toBe(SESSIONS);

    // Records: every decision of a window that moved after a record was acknowledged names it.
    const first = await verifyFrom(base, new Map([...served].map(([h, s]) => [h, s.body])));
    expect(first.failures).toEqual([]);
    const decided = [...first.decisions.values()].map((b) => {
      const d = unwrap(readDecision(b));
      return { t: d.t, named: new Set(d.pathways.flatMap((p) => p.evidence.map(toHex))) };
    });
    const everNamed = new Set(decided.flatMap((d) => [...d.named]));
    let checked = 0;
    for (const r of posted) {
      if (!everNamed.has(r.digest)) continue;
      for (const d of decided) {
        const w = windowAt(policy, d.t);
        if (!inWindow(r, w) || w.b + policy.lag_us < r.ackedAt + 20_000n) continue;
        expect(d.named.has(r.digest), `the decision at ${d.t} names ${r.digest}`).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(100);

    // kill -9 of a worker under load: started again, nothing acknowledged lost.
    const before = served.size;
    let killedAt = 0;
    const load = steer(base, ids, served, {
      concurrency: 12,
      stop: () => killedAt > 0 && Date.now() - killedAt > 2000,
      maxMs: 240_000,
    });
    for (let i = 0; i < 24_000 && served.size < before + 300; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(served.size).toBeGreaterThanOrEqual(before + 300);
    process.kill(pids[0]!, 'SIGKILL');
    killedAt = Date.now();
    await load;
    await hops.stop();
    const after = await pidsOf(child, [pids[0]!]);
    expect(after).toContain(pids[1]);
    expect(served.size).toBeGreaterThan(before + 300);
    const all = await verifyFrom(base, new Map([...served].map(([h, s]) => [h, s.body])));
    expect(all.failures).toEqual([]);
    expect(all.decisions.size).toBe(served.size);
  });
});
