// Live policy on many instances: two servers on one PostgreSQL (real, started here) share the
// sites' reports and the policy in force through the store. A report posted to one instance is
// taken by both; a policy one of them signs is put in force on both, one per period for the whole
// deployment under a flood of reports to both; the operator's rotation on one is taken by the
// other, loads kept by pathway ID; an instance that starts later joins the policy in force; and
// every decision of either verifies from HTTP alone, from the other. Then the same through one
// SQLite file, as the workers of `serve --workers N` share it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fetchAndVerify } from '@wai-steering/verifier';
import { digestOf, jwkToKeyPair, readPolicy, signPolicy, toHex, unwrap } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerConfig } from '../../../src/config/read.js';
import { SteeringEngine } from '../../../src/engine/engine.js';
import { type RunningServer, startServer } from '../../../src/server.js';
import { readMaterials } from '../../../src/start/materials.js';
import { SqliteStore } from '../../../src/store/sqlite/index.js';
import { writeSessionSecret } from '../../helpers/load.js';
import { type PgCluster, startPostgres } from '../../helpers/postgres.js';
import { demoRoom, freePort, TestClock } from '../../helpers/setup.js';
import { signReport } from '../../live/world.js';

const TOKEN = 'a-token-of-the-admin-route';
const P_MS = 2000;

async function until(what: string, ok: () => boolean | Promise<boolean>, ms = 60_000) {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('live policy on two instances sharing one PostgreSQL', () => {
  let cluster: PgCluster;
  let url: string;
  let room: ReturnType<typeof demoRoom>;
  let clock: TestClock;
  const servers: RunningServer[] = [];
  let a: RunningServer;
  let b: RunningServer;

  const start = async (policyPath?: string): Promise<RunningServer> => {
    const config: ServerConfig = {
      ...room.config,
      ...(policyPath === undefined ? {} : { policy: policyPath }),
      listen: { host: '127.0.0.1', port: await freePort() },
      store: { synchronous: 'normal', create: true, checkTimeout: 0, url },
      sessions: { ...room.config.sessions, secret: join(room.setup.dir, 'session.secret') },
      live: {
        pathways: 'all',
        capacityThresholdPpm: 100_000,
        latencyThresholdMs: 10,
        maxAhead: 5000,
        // The reports here hold 30 s (15 periods) while the tests move the clock.
        maxExpiry: 60_000,
      },
      admin: { token: TOKEN },
      instances: { heartbeat: 100, dropAfter: 1000 },
      budget: {
        ...room.config.budget,
        requests: { rate: 0, burst: 1 },
        sessions: { rate: 0, burst: 1 },
      },
    };
    const s = await startServer(config, { clock: clock.now, trustClock: true });
    servers.push(s);
    return s;
  };

  beforeAll(async () => {
    cluster = await startPostgres();
    url = await cluster.createDatabase('live');
    room = demoRoom(8080, P_MS);
    writeSessionSecret(join(room.setup.dir, 'session.secret'));
    // Mid-period, on a period boundary's side that leaves the tests time within one period.
    const P = room.setup.policy.period_us;
    clock = new TestClock(((BigInt(Date.now()) * 1000n) / P) * P + P / 10n);
    a = await start();
    b = await start();
  }, 120_000);

  afterAll(async () => {
    for (const s of servers.reverse()) await s.close().catch(() => {});
    await cluster?.stop();
    room?.remove();
  });

  const report = (hop: string, pathway: string, gas: number) =>
    signReport(room.setup.hops.find((h) => h.name === hop)!.key, {
      room: toHex(room.setup.roomId),
      pathway,
      gas,
      t: String(clock.us),
      expires: String(clock.us + 30_000_000n),
      window_us: '1000000',
    });

  const post = (s: RunningServer, jws: string) =>
    fetch(`${s.url}/capacity`, { method: 'POST', body: jws });

  const rotations = async (): Promise<{ seq: string; by: string; at: string }[]> => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      const { rows } = await c.query(
        'SELECT seq::text AS seq, by, at::text AS at FROM policy_rotations ORDER BY seq',
      );
      return rows;
    } finally {
      await c.end();
    }
  };

  it('starts both on one policy, the configured one, written once to the store', async () => {
    expect(toHex(b.engine.policyDigest)).toBe(toHex(a.engine.policyDigest));
    expect(toHex(a.engine.policyDigest)).toBe(toHex(a.engine.policies.templateDigest));
    expect(await rotations()).toEqual([expect.objectContaining({ seq: '1', by: 'operator' })]);
  });

  it('takes a report posted to one instance on both, and both decide under the policy it signed', async () => {
    const res = await post(a, await report('cdn-b-edge', 'cdn-b', 7));
    expect(res.status).toBe(201);
    const signed = toHex(a.engine.policyDigest);
    expect(signed).not.toBe(toHex(a.engine.policies.templateDigest));
    expect(a.engine.policy.pathways.find((p) => p.id === 'cdn-b')!.capacity).toBe(7);
    // B: the report (its live values) and the policy A signed, through the store.
    const iB = b.engine.policy.pathways.findIndex((p) => p.id === 'cdn-b');
    await until(
      'B takes the policy A signed, and the report',
      () => toHex(b.engine.policyDigest) === signed && b.engine.live!.values()![iB]!.capacity === 7,
    );
    expect(b.engine.live!.values()![iB]).toMatchObject({ source: 'reports', capacity: 7 });
    expect(toHex(b.engine.policies.templateDigest)).toBe(toHex(a.engine.policies.templateDigest));
    // A decision of B names it, and verifies from what A serves.
    const steer = await fetch(`${b.url}/steer?_HLS_throughput=5000000`);
    expect(steer.status).toBe(200);
    // The decision it names, its policy and evidence, all asked of A.
    const named = /\/decisions\/[0-9a-f]{64}/.exec(await steer.text());
    expect(named).not.toBeNull();
    const v = await fetchAndVerify(`${a.url}${named![0]}`, { roomId: room.setup.roomId });
    expect(v.outcome).toMatchObject({ outcome: 'accept' });
    expect(toHex(v.policy)).toBe(toHex(a.engine.policyBytes));
  });

  it('signs one policy a period for both under a flood of reports to both', async () => {
    const P = room.setup.policy.period_us;
    clock.us = (clock.us / P + 1n) * P + P / 10n; // a new period
    const before = (await rotations()).length;
    const period = clock.us / P;
    for (let i = 0; i < 40; i++) {
      clock.advance(5);
      const to = i % 2 === 0 ? a : b;
      const res = await post(to, await report('cdn-b-edge', 'cdn-b', i % 4 < 2 ? 20_000 : 3));
      expect(res.status).toBe(201);
    }
    expect(clock.us / P).toBe(period);
    const after = await rotations();
    const live = after.slice(before);
    expect(live.length).toBe(1);
    expect(live[0]!.by).toBe('live');
    expect(BigInt(live[0]!.at) / P).toBe(period);
    await until(
      'both decide under it',
      () => toHex(a.engine.policyDigest) === toHex(b.engine.policyDigest),
    );
  });

  it("takes the operator's rotation on one instance on both, loads kept by pathway ID", async () => {
    const held = b.engine.sessions.size;
    for (let i = 0; i < 12; i++) {
      expect((await fetch(`${b.url}/steer?_HLS_throughput=5000000`)).status).toBe(200);
    }
    const idsBefore = b.engine.policy.pathways.map((p) => p.id);
    const loadsBefore = Array.from(b.engine.sessions.loads);
    expect(loadsBefore.reduce((x, y) => x + y, 0)).toBe(held + 12);
    // A new policy file, two pathways swapped, signed by the room's authority.
    const authority = jwkToKeyPair(
      JSON.parse(readFileSync(join(room.setup.dir, 'keys', 'authority.jwk'), 'utf8')),
      nodeBackend,
    );
    const p = room.setup.policy;
    const bytes = signPolicy(
      {
        ...p,
        initial: 0,
        pathways: [p.pathways[1]!, p.pathways[0]!, { ...p.pathways[2]!, base: 0 }],
      },
      authority.secretKey!,
      { backend: nodeBackend },
    );
    writeFileSync(room.config.policy, bytes);
    const res = await fetch(`${a.url}/admin/reload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(res.status).toBe(200);
    // In force a lead ahead of the room clock, for both at that instant (docs/live-policy.md).
    const reloaded = (await res.json()) as { policy: string; changed: boolean; from: string };
    const from = BigInt(reloaded.from);
    expect(reloaded.changed).toBe(true);
    expect(from).toBe(clock.us + 3_000_000n);
    const next = reloaded.policy;
    expect(toHex(a.engine.policies.templateDigest)).toBe(next);
    await until("B has the operator's policy", () => b.engine.policies.pending === from);
    expect(toHex(b.engine.policies.templateDigest)).toBe(next);
    for (const x of [a, b]) {
      expect(toHex(x.engine.policies.at(from - 1n).digest)).not.toBe(next);
      expect(toHex(x.engine.policyDigest)).not.toBe(next);
    }
    clock.us = from;
    await until('both take it at its instant', () =>
      [a, b].every((x) => toHex(x.engine.policyDigest) === next),
    );
    const idsAfter = b.engine.policy.pathways.map((q) => q.id);
    expect(idsAfter).toEqual([idsBefore[1], idsBefore[0], idsBefore[2]]);
    for (const [i, id] of idsBefore.entries()) {
      expect(b.engine.sessions.loads[idsAfter.indexOf(id)]).toBe(loadsBefore[i]);
    }
    const last = (await rotations()).at(-1)!;
    expect(last.by).toBe('operator');
    // SIGHUP on B with the same file: nothing to do, it is in force already.
    expect(await b.reload()).toMatchObject({ changed: false });
    // Its reports carry over by pathway ID: cdn-b still reports 3 slots on both.
    const iB = idsAfter.indexOf('cdn-b');
    expect(b.engine.live!.values()![iB]).toMatchObject({ source: 'reports' });
  });

  it('joins the policy in force when it starts later with the same policy file', async () => {
    // A live policy over the operator's: a report the threshold sees, in a new period.
    const P = room.setup.policy.period_us;
    clock.us = (clock.us / P + 1n) * P + P / 10n;
    expect((await post(b, await report('cdn-b-edge', 'cdn-b', 50))).status).toBe(201);
    const inForce = toHex(b.engine.policyDigest);
    expect(inForce).not.toBe(toHex(b.engine.policies.templateDigest));
    await until('A takes it', () => toHex(a.engine.policyDigest) === inForce);
    const c = await start();
    expect(toHex(c.engine.policyDigest)).toBe(inForce);
    const iB = c.engine.policy.pathways.findIndex((p) => p.id === 'cdn-b');
    expect(c.engine.live!.values()![iB]).toMatchObject({ source: 'reports', capacity: 50 });
    const n = (await rotations()).length;
    await c.close();
    servers.splice(servers.indexOf(c), 1);
    expect((await rotations()).length).toBe(n);
  });
});

describe('live policy on two engines sharing one SQLite file (the workers of serve --workers N)', () => {
  it("takes the other engine's reports and policy at its next read, one rotation a period for both", async () => {
    const room = demoRoom(8080, P_MS);
    const path = join(room.setup.dir, 'shared.sqlite');
    const P = room.setup.policy.period_us;
    const clock = new TestClock(1_800_000_000_000_000n + P / 10n);
    const { warnings: _, ...materials } = readMaterials(room.config);
    const stores: SqliteStore[] = [];
    const open = async () => {
      const store = new SqliteStore(path);
      stores.push(store);
      return SteeringEngine.open({
        ...materials,
        store,
        backend: nodeBackend,
        graceMs: 10_000,
        maxSessions: 1000,
        maxQueue: 1000,
        clock: clock.now,
        live: {
          pathways: new Set([0, 1, 2]),
          capacityThresholdPpm: 100_000,
          latencyThresholdMs: 10,
          maxExpiryUs: 60_000_000n,
        },
      });
    };
    const a = await open();
    const b = await open();
    try {
      const report = (gas: number) =>
        signReport(room.setup.hops.find((h) => h.name === 'cdn-b-edge')!.key, {
          room: toHex(room.setup.roomId),
          pathway: 'cdn-b',
          gas,
          t: String(clock.us),
          expires: String(clock.us + 30_000_000n),
          window_us: '1000000',
        });
      const iB = a.policy.pathways.findIndex((p) => p.id === 'cdn-b');
      const first = await a.offerCapacity(await report(9));
      expect(first).toMatchObject({ kind: 'report', taken: true, rotated: { by: 'live' } });
      expect(toHex(b.policyDigest)).not.toBe(toHex(a.policyDigest));
      // B's read (each second, and when a sibling announces): A's policy and A's report.
      await b.syncLive();
      expect(toHex(b.policyDigest)).toBe(toHex(a.policyDigest));
      expect(b.live!.values()[iB]).toMatchObject({ source: 'reports', capacity: 9 });
      // The same period: B's report moves the capacity, but the period has its policy.
      clock.advance(10);
      const second = await b.offerCapacity(await report(20_000));
      expect(second).toMatchObject({ kind: 'report', taken: true });
      expect((second as { rotated?: unknown }).rotated).toBeUndefined();
      // The next period: B signs, and A takes it at its next read.
      clock.us = (clock.us / P + 1n) * P + P / 10n;
      const third = await b.syncLive();
      expect(third?.by).toBe('live');
      expect(await a.syncLive()).toMatchObject({ by: 'live' });
      expect(toHex(a.policyDigest)).toBe(toHex(b.policyDigest));
      expect(a.policy.pathways[iB]!.capacity).toBe(20_000);
      // A third engine started on the file joins what is in force.
      const c = await open();
      expect(toHex(c.policyDigest)).toBe(toHex(a.policyDigest));
      await c.close();
      // A row the store holds is no authority: a policy signed by a key the room does not let
      // sign policies (a hop's), written straight into the file, is not taken, and logged once.
      const forged = signPolicy(
        { ...a.policy, signer: room.setup.hops[0]!.key.publicKey, initial: 1 },
        room.setup.hops[0]!.key.secretKey,
        { backend: nodeBackend },
      );
      const digest = digestOf(unwrap(readPolicy(forged)), nodeBackend);
      expect(
        await stores[0]!.claimPolicy(room.setup.roomId, {
          seq: 99,
          digest,
          bytes: forged,
          template: digest,
          at: clock.us,
          by: 'operator',
        }),
      ).toBe(true);
      const before = toHex(a.policyDigest);
      const errors: string[] = [];
      const log = console.error;
      console.error = (...x: unknown[]) => errors.push(x.join(' '));
      try {
        await a.syncLive();
        await a.syncLive();
      } finally {
        console.error = log;
      }
      expect(toHex(a.policyDigest)).toBe(before);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(/was not taken: it .*signer may not sign it/);
    } finally {
      await a.close();
      await b.close();
      for (const s of stores) await s.close();
      room.remove();
    }
  });
});
