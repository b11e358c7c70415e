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
import pg from 'pg';
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
/** `cdn-b`'s capacity in the demo's policy (its other pathways have none). */
const CAPACITY = 50_000;

/**
 * The sessions a decision states, all pathways together. A pathway stated at or above its
 * capacity is one whose slots the instance did not hold at that moment (docs/server.md, *Capacity
 * across instances*: a lease that lapsed while a busy machine delayed its heartbeat fails closed,
 * stating the instance's own count plus the capacity it does not hold): its own count is that
 * load less the capacity, at most.
 */
function statedSessions(loads: readonly number[]): number {
  return loads.reduce((n, load) => n + (load >= CAPACITY ? load - CAPACITY : load), 0);
}
// Sessions count for the whole test however slowly a busy machine lets the loops ask again, so
// that "every session" stays every session.
const GRACE_S = 600;

/**
 * The instances' heartbeats as the database records them (`instance_loads.at`, its clock, ms):
 * polled until stopped, each beat seen once or more; `seenBy(pid, t)` is the latest beat of the
 * instance of process `pid` that a poll answered before `t` had seen committed.
 */
function watchBeats(url: string) {
  const polls: { doneAt: number; rows: { instance: string; ms: number }[] }[] = [];
  let stopped = false;
  const c = new pg.Client({ connectionString: url });
  const running = (async () => {
    await c.connect();
    while (!stopped) {
      const { rows } = await c.query<{ instance: string; ms: number }>(
        'SELECT instance, (extract(epoch FROM at) * 1000)::float8 AS ms FROM instance_loads',
      );
      polls.push({ doneAt: Date.now(), rows });
      await new Promise((r) => setTimeout(r, 10));
    }
    await c.end();
  })();
  // An instance's row is under its name: its host and port (`instances/identity.ts`).
  const mine = (port: number) => (r: { instance: string }) => r.instance.endsWith(`:${port}`);
  return {
    stop: async () => {
      stopped = true;
      await running;
    },
    of(port: number): number[] {
      const all = new Set(polls.flatMap((p) => p.rows.filter(mine(port)).map((r) => r.ms)));
      return [...all].sort((x, y) => x - y);
    },
    seenBy(port: number, t: number): number | undefined {
      let latest: number | undefined;
      for (const p of polls) {
        if (p.doneAt >= t) break;
        for (const r of p.rows.filter(mine(port)))
          if (latest === undefined || r.ms > latest) latest = r.ms;
      }
      return latest;
    },
  };
}

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

  // A generous ceiling: on a machine whose cores are busy this takes minutes, not seconds.
  it('shares the archive, the evidence and the loads, and survives a kill -9 of one', {
    timeout: 600_000,
  }, async () => {
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
          sessions: { ...base.sessions, grace: `${GRACE_S}s`, secret: 'session.secret' },
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
    // The instances' heartbeats as the database records them, watched throughout phase 1.
    const beats = watchBeats(url);
    const phase1 = await steer(haproxy.url, ids, served, {
      concurrency: 24,
      stop: () => served.size >= 1500 && Date.now() - started > 2500,
      maxMs: 240_000,
    });
    await beats.stop();
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

    // Loads: once quiet, a decision at B states every session, A's too, as soon as a heartbeat
    // of A's and then one of B's have passed (however late a busy machine makes them).
    const onA = [...home.values()].filter((i) => i === 'a').length;
    expect(onA).toBeGreaterThan(0);
    const stated = async (): Promise<number> => {
      const probe = await fetch(`${b.url}/steer/reload?wai_session=${sessions(1, secret)[0]}`);
      const probeDigest = (
        JSON.parse(await probe.text())['science.transaction.wai-decision'] as string
      ).slice(-64);
      const probeBytes = new Uint8Array(
        await (await fetch(`${b.url}/decisions/${probeDigest}`)).arrayBuffer(),
      );
      return statedSessions(unwrap(readDecision(probeBytes)).pathways.map((p) => p.load));
    };
    let total = await stated();
    for (let i = 0; i < 1200 && total !== SESSIONS; i++) {
      expect(total).toBeLessThanOrEqual(SESSIONS);
      await new Promise((r) => setTimeout(r, HEARTBEAT_MS / 5));
      total = await stated();
    }
    expect(total).toBe(SESSIONS);
    const metrics = await (await fetch(`${b.url}/metrics`)).text();
    expect(metrics).toMatch(/^wai_steering_peers 1$/m);

    // Every manifest verifies from what the other instance serves by digest.
    const placements = new Map<string, { t: bigint; end: bigint }[]>();
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
      // Each session's placements (the load replay's: until s(t) + ttl + grace, in seconds).
      for (const bytes of decisions.values()) {
        const d = unwrap(readDecision(bytes));
        const session = toHex(d.session);
        const list = placements.get(session) ?? [];
        list.push({ t: d.t, end: d.t / 1_000_000n + BigInt(d.ttl + GRACE_S) });
        placements.set(session, list);
      }
    }
    for (const list of placements.values()) list.sort((x, y) => (x.t < y.t ? -1 : 1));

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

    // During the load, within the bound the heartbeats actually observed give (not a bound in
    // wall-clock terms, which a machine too busy for the heartbeat to keep time breaks): a
    // decision at B counts B's own sessions exactly, plus A's as of A's heartbeats B read.
    // B read A's row of a beat x once a beat of B's started after a poll had seen x committed,
    // and it uses what it read once its next beat started; A's beat x counts what A placed
    // before its previous beat. The bound: B's sessions answered before the decision, plus A's
    // answered before that previous beat. Never more sessions than there are.
    // The sessions of an instance that count throughout [from, to] (ms): their latest placement
    // before `from` still counts at `to`'s second (a session a slow loop did not ask again within
    // its TTL and grace no longer counts, on a busy machine).
    const counting = (instance: 'a' | 'b', from: number, to: number): number => {
      const before = BigInt(Math.floor(from)) * 1000n;
      const second = BigInt(Math.floor(to / 1000));
      let n = 0;
      for (const [session, list] of placements) {
        if (home.get(session) !== instance) continue;
        const latest = list.filter((p) => p.t < before).at(-1);
        if (latest !== undefined && latest.end > second) n++;
      }
      return n;
    };
    const aBeats = beats.of(configs[0]!.port);
    const bBeats = beats.of(configs[1]!.port);
    const lastBefore = (xs: readonly number[], t: number) => xs.filter((x) => x < t).at(-1);
    // The clocks of the processes and of the database: one machine's, to a few ms.
    const SLACK_MS = 5;
    let bounded = 0;
    for (const bytes of fromB.decisions.values()) {
      const d = unwrap(readDecision(bytes));
      expect(statedSessions(d.pathways.map((p) => p.load))).toBeLessThanOrEqual(SESSIONS);
      const stated = d.pathways.reduce((n, p) => n + p.load, 0);
      const tB = Number(d.t / 1000n) - SLACK_MS;
      const own = counting('b', tB, tB + SLACK_MS);
      let peers = 0;
      const yc = lastBefore(bBeats, tB);
      const yb = yc === undefined ? undefined : lastBefore(bBeats, yc);
      const ya = yb === undefined ? undefined : lastBefore(bBeats, yb);
      const x = ya === undefined ? undefined : beats.seenBy(configs[0]!.port, ya - SLACK_MS);
      const previous = x === undefined ? undefined : lastBefore(aBeats, x);
      if (previous !== undefined) peers = counting('a', previous - SLACK_MS, x! + SLACK_MS);
      expect(stated).toBeGreaterThanOrEqual(own + peers);
      if (peers > 0) bounded++;
    }
    expect(bounded).toBeGreaterThan(0);
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
    const movedSince = (t: number) =>
      [...served.values()].filter(
        (s) => s.at > t && home.get(s.session) === 'a' && s.instance === 'b',
      );
    const load = steer(haproxy.url, ids, served, {
      concurrency: 24,
      // Until the balancer has moved a good share of A's sessions to B (however long it takes).
      stop: () => killedAt > 0 && movedSince(killedAt + 3000).length > 60,
      maxMs: 240_000,
    });
    for (let i = 0; i < 24_000 && served.size < before.size + 400; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(served.size).toBeGreaterThanOrEqual(before.size + 400);
    a.proc.kill('SIGKILL');
    killedAt = Date.now();
    await exited(a.proc);
    await load;
    await hops.stop();
    // The balancer moved A's sessions to B.
    expect(movedSince(killedAt + 3000).length).toBeGreaterThan(50);
    const late = [...served.values()].filter((s) => s.at > killedAt + 3000);
    expect(late.every((s) => s.instance === 'b')).toBe(true);

    // Every decision whose manifest was served, by either, is served byte-exact by B and verifies.
    const all = new Map([...served].map(([h, s]) => [h, s.body]));
    const { decisions, failures } = await verifyFrom(b.url, all);
    expect(failures).toEqual([]);
    expect(decisions.size).toBe(all.size);
  });
});
