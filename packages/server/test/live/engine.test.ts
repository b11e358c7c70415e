// Live policy end to end through the route table: sites report their GAS with signed JWS, the
// server signs a new policy at most once a period, the limits bind, reports age out, and every
// decision before and after a rotation verifies from HTTP alone with the policy it names.
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { fetchAndVerify } from '@wai-steering/verifier';
import {
  DECISION_REASON,
  digestOf,
  jwkToKeyPair,
  readPolicy,
  signPolicy,
  toHex,
  unwrap,
} from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { afterEach, describe, expect, it } from 'vitest';
import { SteeringApp } from '../../src/app.js';
import { HopSimulator } from '../../src/demo/simulator.js';
import { SteeringEngine } from '../../src/engine/engine.js';
import { createHttpServer, listen } from '../../src/http.js';
import { readMaterials } from '../../src/start/materials.js';
import { SqliteStore } from '../../src/store/sqlite/index.js';
import { demoRoom, freePort, get, TestClock, text } from '../helpers/setup.js';
import { signReport } from './world.js';

const T0 = 1_800_000_000_000_000n + 1_000_000n; // mid-period: P = 2 s, L = 0.5 s

async function liveApp(pathways: readonly number[], port = 8080) {
  const { setup, config, remove } = demoRoom(port, 2000);
  const clock = new TestClock(T0);
  const { warnings: _, ...materials } = readMaterials(config);
  const store = new SqliteStore(':memory:');
  const engine = await SteeringEngine.open({
    ...materials,
    store,
    backend: nodeBackend,
    graceMs: 10_000,
    maxSessions: 100_000,
    maxQueue: 10_000,
    clock: clock.now,
    live: { pathways: new Set(pathways), capacityThresholdPpm: 100_000, latencyThresholdMs: 10 },
  });
  const app = new SteeringApp(engine, { maxRecordBytes: 4096, maxTargetBytes: 8192 });
  const sim = new HopSimulator({
    policy: setup.policy,
    roomId: setup.roomId,
    hops: setup.hops,
    base: 'http://unused',
    clock: clock.now,
  });
  // Evidence for every pathway: the three periods the window [b − 3P, b) tiles.
  const P = setup.policy.period_us;
  const b = ((T0 - setup.policy.lag_us) / P) * P;
  for (const end of [b - 2n * P, b - P, b]) {
    for (const hop of setup.hops) {
      const res = await post(app, '/records', sim.record(hop, end - P, end, 100));
      expect([200, 201]).toContain(res.status);
    }
  }
  const close = async () => {
    await engine.close();
    await store.close();
    remove();
  };
  return { setup, config, clock, engine, app, store, close };
}

function post(app: SteeringApp, target: string, body: Uint8Array | string) {
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  return app.handle({
    method: 'POST',
    target,
    headers: { 'content-length': String(bytes.length) },
    body: async (limit) => (bytes.length > limit ? 'too_large' : bytes),
  });
}

type World = Awaited<ReturnType<typeof liveApp>>;

function report(
  w: World,
  hop: string,
  pathway: string,
  gas: number,
  over: Record<string, unknown> = {},
) {
  const h = w.setup.hops.find((x) => x.name === hop)!;
  return signReport(h.key, {
    room: toHex(w.setup.roomId),
    pathway,
    gas,
    t: String(w.clock.us),
    expires: String(w.clock.us + 3_000_000n),
    window_us: '1000000',
    ...over,
  });
}

/** A new session's manifest and its first pathway. */
async function steerOnce(w: World, target = '/steer?_HLS_throughput=5000000') {
  const res = await get(w.app, target);
  expect(res.status).toBe(200);
  const manifest = JSON.parse(text(res.body));
  return { body: text(res.body), first: manifest['PATHWAY-PRIORITY'][0] as string, manifest };
}

let opened: World | undefined;
afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

describe('live capacity', () => {
  it('takes a signed report, signs a policy whose capacity binds, and sessions go elsewhere', async () => {
    opened = await liveApp([1]);
    const w = opened;
    const before = toHex(w.engine.policyDigest);
    // cdn-b (OnChipCounter, rank 1) is first for a client in no band.
    const firsts = new Map<string, number>();
    for (let i = 0; i < 40; i++) {
      const { first } = await steerOnce(w);
      firsts.set(first, (firsts.get(first) ?? 0) + 1);
    }
    const onB = firsts.get('cdn-b') ?? 0;
    expect(onB).toBeGreaterThan(20);
    // cdn-b's edge reports 5 slots: far below the 50 000 in force, so a policy is signed.
    const res = await post(w.app, '/capacity', await report(w, 'cdn-b-edge', 'cdn-b', 5));
    expect(res.status).toBe(201);
    const body = JSON.parse(text(res.body));
    expect(body.taken).toBe(true);
    expect(body.policy).toBe(toHex(w.engine.policyDigest));
    expect(body.policy).not.toBe(before);
    expect(w.engine.policy.pathways[1]!.capacity).toBe(5);
    // Everything else is the template's: the same room, URIs, hops and the other capacities.
    expect(w.engine.policy.pathways.map((p) => p.capacity)).toEqual([
      w.setup.policy.pathways[0]!.capacity,
      5,
      w.setup.policy.pathways[2]!.capacity,
    ]);
    // cdn-b's load is past 5 now: no new session is placed there first.
    expect(w.engine.sessions.loads[1]!).toBe(onB);
    for (let i = 0; i < 20; i++) expect((await steerOnce(w)).first).not.toBe('cdn-b');
    // The old policy is still served by digest, and so is the new one.
    for (const hex of [before, body.policy]) {
      const p = await get(w.app, `/policies/${hex}`);
      expect(p.status).toBe(200);
      expect(toHex(digestOf(unwrap(readPolicy(p.body as Uint8Array)), nodeBackend))).toBe(hex);
    }
  });

  it('ages a site that stops reporting out to 0 within its expiry, at the next period', async () => {
    opened = await liveApp([1]);
    const w = opened;
    await post(w.app, '/capacity', await report(w, 'cdn-b-edge', 'cdn-b', 30_000));
    expect(w.engine.policy.pathways[1]!.capacity).toBe(30_000);
    w.clock.advance(2_999);
    expect(await w.engine.live!.tick()).toBeUndefined(); // fresh still
    w.clock.advance(1);
    const rotated = await w.engine.live!.tick();
    expect(rotated?.by).toBe('live');
    expect(w.engine.policy.pathways[1]!.capacity).toBe(0);
    expect(w.engine.live!.values()?.[1]?.source).toBe('expired');
  });

  it('signs one policy a period at most under a flood of reports', async () => {
    opened = await liveApp([1]);
    const w = opened;
    const P = w.setup.policy.period_us;
    const digests = new Set<string>();
    // 200 reports within one period, the GAS swinging widely.
    const periodOf = (t: bigint) => t / P;
    const start = periodOf(w.clock.us);
    for (let i = 0; i < 200; i++) {
      w.clock.advance(2);
      const res = await post(
        w.app,
        '/capacity',
        await report(w, 'cdn-b-edge', 'cdn-b', i % 2 === 0 ? 10 : 40_000),
      );
      expect(res.status).toBe(201);
      if (periodOf(w.clock.us) === start) digests.add(toHex(w.engine.policyDigest));
    }
    expect(periodOf(w.clock.us)).toBe(start); // still the same period
    expect(digests.size).toBe(1);
    expect(w.engine.metrics.render()).toMatch(
      /wai_steering_policy_rotations_total\{by="live"\} 1\n/,
    );
    // The next period may sign again.
    w.clock.advance(Number(P / 1000n));
    await post(w.app, '/capacity', await report(w, 'cdn-b-edge', 'cdn-b', 20_000));
    expect(w.engine.policy.pathways[1]!.capacity).toBe(20_000);
  });

  it('takes a report when the store cannot write the policy it calls for, and signs it a period later', async () => {
    opened = await liveApp([1]);
    const w = opened;
    const claim = w.store.claimPolicy.bind(w.store);
    w.store.claimPolicy = async () => {
      throw new Error('the store is down');
    };
    const res = await post(w.app, '/capacity', await report(w, 'cdn-b-edge', 'cdn-b', 5));
    expect(res.status).toBe(201);
    expect(JSON.parse(text(res.body))).toMatchObject({ taken: true });
    expect(JSON.parse(text(res.body)).policy).toBeUndefined();
    // Told once, through health (no line per report).
    expect(w.engine.health.causes()).toMatchObject([
      {
        cause: 'store_queries',
        message: expect.stringMatching(/not put in force: .*the store is down/),
      },
    ]);
    expect(w.engine.policy.pathways[1]!.capacity).not.toBe(5);
    expect(w.engine.metrics.render()).toMatch(
      /wai_steering_store_errors_total\{op="capacity"\} 1\n/,
    );
    // The store back, the next period signs it, and the cause clears.
    w.store.claimPolicy = claim;
    w.clock.advance(Number(w.setup.policy.period_us / 1000n));
    expect((await w.engine.syncLive())?.by).toBe('live');
    expect(w.engine.policy.pathways[1]!.capacity).toBe(5);
    expect(w.engine.health.ok).toBe(true);
  });

  it('answers 503 store_unavailable, and takes nothing, when the store cannot keep a report', async () => {
    opened = await liveApp([1]);
    const w = opened;
    const put = w.store.putCapacityReport.bind(w.store);
    w.store.putCapacityReport = async () => {
      throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    };
    const jws = await report(w, 'cdn-b-edge', 'cdn-b', 5);
    const res = await post(w.app, '/capacity', jws);
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(JSON.parse(text(res.body))).toMatchObject({ error: 'store_unavailable' });
    expect(w.engine.live!.values()[1]!.source).toBe('template');
    expect(w.engine.health.has('store_queries')).toBe(true);
    // Sent again once the store keeps it: taken.
    w.store.putCapacityReport = put;
    expect((await post(w.app, '/capacity', jws)).status).toBe(201);
    expect(w.engine.live!.values()[1]!.source).toBe('reports');
    expect(w.engine.health.ok).toBe(true);
  });

  it('ignores a replayed or older report, and refuses forged ones with their reasons', async () => {
    opened = await liveApp([1]);
    const w = opened;
    const jws = await report(w, 'cdn-b-edge', 'cdn-b', 100);
    expect((await post(w.app, '/capacity', jws)).status).toBe(201);
    const again = await post(w.app, '/capacity', jws);
    expect(again.status).toBe(200);
    expect(JSON.parse(text(again.body)).taken).toBe(false);
    const refusedAs = async (jws: string) => {
      const res = await post(w.app, '/capacity', jws);
      expect(res.status).toBe(400);
      return JSON.parse(text(res.body)).reason as string;
    };
    // Another room; a hop of another pathway; an interior hop; garbage.
    expect(
      await refusedAs(await report(w, 'cdn-b-edge', 'cdn-b', 1, { room: 'cd'.repeat(32) })),
    ).toBe('wrong_room');
    expect(await refusedAs(await report(w, 'cdn-a-edge', 'cdn-b', 1))).toBe('unknown_hop');
    expect(await refusedAs(await report(w, 'cdn-b-shield', 'cdn-b', 1))).toBe('not_edge_hop');
    expect(await refusedAs('not a jws')).toBe('malformed_report');
    expect(w.engine.policy.pathways[1]!.capacity).toBe(100);
  });

  it('falls back to reason none and the short TTL when every site has expired', async () => {
    opened = await liveApp([0, 1, 2]);
    const w = opened;
    for (const [hop, pathway] of [
      ['cdn-a-edge', 'cdn-a'],
      ['cdn-b-edge', 'cdn-b'],
      ['cdn-b-east-edge', 'cdn-b-east'],
    ] as const) {
      expect((await post(w.app, '/capacity', await report(w, hop, pathway, 1_000))).status).toBe(
        201,
      );
    }
    w.clock.advance(4_000); // past every expiry, and a period later
    await w.engine.live!.tick();
    expect(w.engine.policy.pathways.map((p) => p.capacity)).toEqual([0, 0, 0]);
    for (let i = 0; i < 10; i++) {
      const res = await get(w.app, '/steer?_HLS_throughput=5000000');
      const m = JSON.parse(text(res.body));
      expect(m.TTL).toBe(w.setup.policy.min_ttl_s);
      const d = await get(w.app, new URL(m['science.transaction.wai-decision']).pathname);
      const bytes = d.body as Uint8Array;
      // §7.1: reason is the byte before the priority (count m = 3, then 3 indices) and sig.
      expect(bytes[bytes.length - 64 - 4 - 1]).toBe(DECISION_REASON.none);
    }
  });
});

describe('every decision verifies from HTTP alone, before and after a rotation', () => {
  let http: Server | undefined;
  afterEach(async () => {
    await new Promise((r) => (http === undefined ? r(undefined) : http.close(r)));
    http = undefined;
  });

  it('names the policy it was decided under, which the server serves', async () => {
    const port = await freePort();
    opened = await liveApp([1], port);
    const w = opened;
    http = createHttpServer(w.app);
    const base = await listen(http, '127.0.0.1', port);
    const served: string[] = [];
    for (let i = 0; i < 5; i++) served.push((await steerOnce(w)).body);
    await post(w.app, '/capacity', await report(w, 'cdn-b-edge', 'cdn-b', 3));
    for (let i = 0; i < 5; i++) served.push((await steerOnce(w)).body);
    const policies = new Set<string>();
    for (const body of served) {
      const v = await fetchAndVerify({ manifest: new TextEncoder().encode(body), base });
      expect(v.outcome.outcome).toBe('accept');
      policies.add(toHex(v.policy));
    }
    expect(policies.size).toBe(2);
  });
});

describe('the operator rotates the policy without a restart', () => {
  it('keeps the sessions and their loads, mapped by pathway ID', async () => {
    opened = await liveApp([1]);
    const w = opened;
    for (let i = 0; i < 30; i++) await steerOnce(w);
    const loads = Array.from(w.engine.sessions.loads);
    const ids = w.engine.policy.pathways.map((p) => p.id);
    // The same pathways in another order, cdn-a's latency changed: signed by the authority.
    const authority = JSON.parse(readFileSync(join(w.setup.dir, 'keys', 'authority.jwk'), 'utf8'));
    const key = jwkToKeyPair(authority, nodeBackend);
    const p = w.setup.policy;
    const reordered = {
      ...p,
      initial: 0,
      pathways: [
        { ...p.pathways[1]!, latency_ms: 60 },
        { ...p.pathways[0]! },
        { ...p.pathways[2]!, base: 0 },
      ],
    };
    const bytes = signPolicy(reordered, key.secretKey!, { backend: nodeBackend });
    const rotated = await w.engine.rotatePolicy(bytes, 'operator');
    expect(rotated.remapped).toBe(true);
    const now = w.engine.policy.pathways.map((q) => q.id);
    // Each pathway keeps its own sessions, by ID.
    for (const [i, id] of ids.entries()) {
      expect(w.engine.sessions.loads[now.indexOf(id)]).toBe(loads[i]);
    }
    // A policy of another room is refused and the one in force stays.
    const other = signPolicy({ ...reordered, room: new Uint8Array(32).fill(7) }, key.secretKey!, {
      backend: nodeBackend,
    });
    await expect(w.engine.rotatePolicy(other, 'operator')).rejects.toThrow(/of room/);
    expect(toHex(w.engine.policyDigest)).toBe(toHex(rotated.digest));
  });
});
