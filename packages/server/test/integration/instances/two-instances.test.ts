/**
 * Two instances on one PostgreSQL behind HAProxy (the repository's `deploy/haproxy.cfg`), every
 * component real and started here: sessions hashed to an instance; each manifest verified from
 * what the other instance serves; loads that count both instances' sessions; a record posted to
 * one named by the other's next window; and a `kill -9` of one under load.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inWindow, windowAt } from '@wai-steering/evidence';
import { readDecision, toHex, unwrap } from '@wai-steering/wire';
import { afterAll, describe, expect, it } from 'vitest';
import { setupDemo } from '../../../src/demo/setup.js';
import { monotonicClock } from '../../../src/engine/clock.js';
import { type Child, exited, spawnChild } from '../../helpers/child.js';
import { type Haproxy, startHaproxy } from '../../helpers/haproxy.js';
import {
  type Posted,
  postRecords,
  type Served,
  sessions,
  steer,
  verifyFrom,
  writeSessionSecret,
} from '../../helpers/load.js';
import { type PgCluster, startPostgres } from '../../helpers/postgres.js';
import { freePort, tempDir } from '../../helpers/setup.js';

const SESSIONS = 240;
const HEARTBEAT_MS = 250;

describe('two instances on PostgreSQL behind HAProxy', () => {
  const t = tempDir('wai-two-');
  let cluster: PgCluster | undefined;
  let haproxy: Haproxy | undefined;
  const children: Child[] = [];
  afterAll(async () => {
    await haproxy?.stop();
    for (const c of children) {
      if (c.proc.exitCode === null && c.proc.signalCode === null) {
        c.proc.kill('SIGKILL');
        await exited(c.proc);
      }
    }
    await cluster?.stop();
    t.remove();
  });

  it('shares the archive, the evidence and the loads, and survives a kill -9 of one', async () => {
    cluster = await startPostgres();
    const url = await cluster.createDatabase('two');
    const setup = setupDemo(t.dir, { port: 8080, periodMs: 500, budgets: false });
    const base = JSON.parse(readFileSync(setup.configPath, 'utf8'));
    // One session secret for the deployment: each instance takes the other's sessions.
    const secret = writeSessionSecret(join(t.dir, 'session.secret'));
    const configs = await Promise.all(
      ['a', 'b'].map(async (name) => {
        const path = join(t.dir, `config-${name}.json`);
        const port = await freePort();
        const config = {
          ...base,
          listen: { host: '127.0.0.1', port },
          store: { url },
          sessions: { ...base.sessions, secret: 'session.secret' },
          instances: { heartbeat: `${HEARTBEAT_MS}ms`, drop_after: '1s' },
        };
        writeFileSync(path, JSON.stringify(config));
        return { path, port };
      }),
    );
    const a = await spawnChild(configs[0]!.path);
    children.push(a);
    const b = await spawnChild(configs[1]!.path);
    children.push(b);
    haproxy = await startHaproxy(`127.0.0.1:${configs[0]!.port}`, `127.0.0.1:${configs[1]!.port}`);
    const clock = monotonicClock();
    const policy = setup.policy;

    // The hops post to A only.
    const posted: Posted[] = [];
    const hops = postRecords(setup, a.url, clock, posted);
    await hops.ready;

    // Phase 1: many sessions through the balancer.
    const ids = sessions(SESSIONS, secret);
    const served = new Map<string, Served>();
    const started = Date.now();
    const phase1 = await steer(haproxy.url, ids, served, {
      concurrency: 24,
      stop: () => served.size >= 1500 && Date.now() - started > 2500,
    });
    expect(phase1.failures, phase1.reasons.join('\n')).toBe(0);
    const byInstance = { a: 0, b: 0 };
    const home = new Map<string, string>();
    for (const s of served.values()) {
      byInstance[s.instance as 'a' | 'b']++;
      // Hashing on wai_session: a session is answered by one instance throughout.
      expect(home.get(s.session) ?? s.instance).toBe(s.instance);
      home.set(s.session, s.instance);
    }
    expect(byInstance.a).toBeGreaterThan(100);
    expect(byInstance.b).toBeGreaterThan(100);
    expect(home.size).toBe(SESSIONS);

    // Loads: quiet for several heartbeats, then a decision at B states every session, A's too.
    await new Promise((r) => setTimeout(r, 4 * HEARTBEAT_MS));
    const probe = await fetch(`${b.url}/steer/reload?wai_session=${sessions(1, secret)[0]}`);
    const probeDigest = (
      JSON.parse(await probe.text())['science.transaction.wai-decision'] as string
    ).slice(-64);
    const probeBytes = new Uint8Array(
      await (await fetch(`${b.url}/decisions/${probeDigest}`)).arrayBuffer(),
    );
    const loads = unwrap(readDecision(probeBytes)).pathways.map((p) => p.load);
    const onA = [...home.values()].filter((i) => i === 'a').length;
    expect(onA).toBeGreaterThan(0);
    expect(loads.reduce((x, y) => x + y, 0)).toBe(SESSIONS);
    const metrics = await (await fetch(`${b.url}/metrics`)).text();
    expect(metrics).toMatch(/^wai_steering_peers 1$/m);

    // Every manifest verifies from what the other instance serves by digest.
    for (const [name, other] of [
      ['a', b.url],
      ['b', a.url],
    ] as const) {
      const mine = new Map(
        [...served].filter(([, s]) => s.instance === name).map(([h, s]) => [h, s.body]),
      );
      const { decisions, failures } = await verifyFrom(other, mine);
      expect(failures).toEqual([]);
      expect(decisions.size).toBe(mine.size);
    }

    // A record posted to A is named by B's decisions of every window that can name it and that
    // moved after A acknowledged it (20 ms for the two processes' clocks).
    const fromB = await verifyFrom(
      b.url,
      new Map([...served].filter(([, s]) => s.instance === 'b').map(([h, s]) => [h, s.body])),
    );
    const decided = [...fromB.decisions.values()].map((bytes) => {
      const d = unwrap(readDecision(bytes));
      return { t: d.t, named: new Set(d.pathways.flatMap((p) => p.evidence.map(toHex))) };
    });
    const everNamed = new Set(decided.flatMap((d) => [...d.named]));

    // Within the documented bound during the load: a decision at B counts every session first
    // answered (by A or B) more than 2 heartbeats and a round trip before it (100 ms allowed for
    // the round trip and the processes' clocks), and never more sessions than there are.
    const firstAt = new Map<string, number>();
    for (const s of served.values()) {
      if (!firstAt.has(s.session) || s.at < firstAt.get(s.session)!) firstAt.set(s.session, s.at);
    }
    const answered = [...firstAt.values()].sort((x, y) => x - y);
    let bounded = 0;
    for (const bytes of fromB.decisions.values()) {
      const d = unwrap(readDecision(bytes));
      const stated = d.pathways.reduce((n, p) => n + p.load, 0);
      const before = Number(d.t / 1000n) - (2 * HEARTBEAT_MS + 100);
      const counted = answered.filter((at) => at < before).length;
      expect(stated).toBeGreaterThanOrEqual(counted);
      expect(stated).toBeLessThanOrEqual(SESSIONS);
      if (counted > 0) bounded++;
    }
    expect(bounded).toBeGreaterThan(100);
    let checked = 0;
    for (const r of posted) {
      if (!everNamed.has(r.digest)) continue; // a hop whose records no decision names (§5.4)
      for (const d of decided) {
        const w = windowAt(policy, d.t);
        if (!inWindow(r, w) || w.b + policy.lag_us < r.ackedAt + 20_000n) continue;
        expect(d.named.has(r.digest), `B's decision at ${d.t} names ${r.digest}`).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(100);

    // Phase 2: load again, and kill -9 of A in the middle of it.
    const before = new Set(served.keys());
    let killedAt = 0;
    const load = steer(haproxy.url, ids, served, {
      concurrency: 24,
      stop: () => killedAt > 0 && Date.now() - killedAt > 5000,
    });
    while (served.size < before.size + 400) await new Promise((r) => setTimeout(r, 10));
    a.proc.kill('SIGKILL');
    killedAt = Date.now();
    await exited(a.proc);
    await load;
    await hops.stop();
    // The balancer moved A's sessions to B.
    const moved = [...served.values()].filter(
      (s) => s.at > killedAt + 3000 && home.get(s.session) === 'a' && s.instance === 'b',
    );
    expect(moved.length).toBeGreaterThan(50);
    const late = [...served.values()].filter((s) => s.at > killedAt + 3000);
    expect(late.every((s) => s.instance === 'b')).toBe(true);

    // Every decision whose manifest was served, by either, is served byte-exact by B and verifies.
    const all = new Map([...served].map(([h, s]) => [h, s.body]));
    const { decisions, failures } = await verifyFrom(b.url, all);
    expect(failures).toEqual([]);
    expect(decisions.size).toBe(all.size);
  });
});
