// The policy in force and how it changes: the operator's rotation (sessions carried by pathway
// ID), one of another room refused, another instance's policy adopted, the store's joined at
// start, and changes one at a time.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryEvidenceStore } from '@wai-steering/evidence';
import { digestOf, type PolicyFields, signPolicy, toHex } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { afterEach, describe, expect, it } from 'vitest';
import { checkPolicy } from '../../src/engine/policy.js';
import { PolicyInForce } from '../../src/engine/policy-in-force.js';
import { Metrics } from '../../src/metrics.js';
import { SessionTable } from '../../src/sessions.js';
import { SqliteStore } from '../../src/store/sqlite/index.js';
import { type LiveWorld, liveWorld } from '../live/world.js';

const T = 1_800_000_000_000_000n;
const stores: SqliteStore[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function open(
  w: LiveWorld,
  store = new SqliteStore(':memory:'),
  fields = w.fields,
  o: { readonly leadUs?: bigint; readonly now?: () => bigint } = {},
) {
  stores.push(store);
  const sessions = new SessionTable(fields.pathways.map((p) => p.id));
  const metrics = new Metrics();
  let announced = 0;
  const bytes = signPolicy(fields, w.steering.secretKey, { backend: nodeBackend });
  const checked = checkPolicy(w.room, bytes, nodeBackend);
  if (!checked.ok) throw new Error(checked.problem);
  const policies = new PolicyInForce(
    {
      store,
      key: {
        roomId: w.room.roomId,
        publicKey: w.steering.publicKey,
        secretKey: w.steering.secretKey,
        backend: nodeBackend,
      },
      room: () => w.room,
      evidence: new MemoryEvidenceStore(),
      sessions,
      metrics,
      now: o.now ?? (() => T),
      live: undefined,
      announce: () => announced++,
      closing: () => false,
      ...(o.leadUs === undefined ? {} : { leadUs: o.leadUs }),
    },
    checked.value,
  );
  return { policies, sessions, metrics, store, announced: () => announced };
}

function sign(w: LiveWorld, fields: PolicyFields): Uint8Array {
  return signPolicy(fields, w.steering.secretKey, { backend: nodeBackend });
}

const session = (b: number) => new Uint8Array(16).fill(b);

describe('PolicyInForce', () => {
  it('rotates: the new policy is in force and kept, sessions follow their pathway by ID', async () => {
    const w = liveWorld();
    const { policies, sessions, metrics, store } = open(w);
    await policies.join();
    const first = policies.current.digest;
    sessions.place(session(1), 0, 100);
    sessions.place(session(2), 1, 100);
    sessions.place(session(3), 1, 100);
    // The same pathways the other way round.
    const swapped = { ...w.fields, pathways: [w.fields.pathways[1]!, w.fields.pathways[0]!] };
    const bytes = sign(w, swapped);
    const r = await policies.rotate(bytes, 'operator');
    expect(r).toEqual({
      kind: 'rotated',
      by: 'operator',
      digest: digestOf(policies.current.policy, nodeBackend),
      previous: first,
      remapped: true,
      from: T,
    });
    expect(policies.current.ids).toEqual(['cdn-b', 'cdn-a']);
    expect(Array.from(sessions.loadsAt(0))).toEqual([2, 1]);
    expect(toHex(policies.templateDigest)).toBe(toHex(r.digest));
    expect(await store.getBlob('policy', r.digest)).toEqual(bytes);
    expect(metrics.rotations.get({ by: 'operator' })).toBe(1);
  });

  it('shows the loads under the new policy by pathway ID; the next decision drops a pathway it lacks', async () => {
    const w = liveWorld();
    const { policies, sessions } = open(w);
    await policies.join();
    sessions.place(session(1), 0, 100);
    sessions.place(session(2), 1, 100);
    await policies.rotate(sign(w, { ...w.fields, pathways: [w.fields.pathways[1]!] }), 'operator');
    expect(Array.from(sessions.loadsAt(0))).toEqual([1]);
    // The sessions are counted under the policy of the next decision (docs/audit.md).
    expect(sessions.size).toBe(2);
    sessions.follow(policies.current.ids);
    expect(sessions.size).toBe(1);
    expect(Array.from(sessions.loadsAt(0))).toEqual([1]);
  });

  it('refuses a policy of another room or signer, and keeps the one in force', async () => {
    const w = liveWorld();
    const { policies } = open(w);
    const before = policies.current.digest;
    const other = sign(w, { ...w.fields, room: new Uint8Array(32).fill(7) });
    await expect(policies.rotate(other, 'operator')).rejects.toThrow(/is of room 0707/);
    const byHop = signPolicy({ ...w.fields, signer: w.hops[0]!.publicKey }, w.hops[0]!.secretKey, {
      backend: nodeBackend,
    });
    await expect(policies.rotate(byHop, 'operator')).rejects.toThrow(/signer may not sign/);
    expect(policies.current.digest).toEqual(before);
  });

  it('adopts the policy another instance put in force on a shared store, and joins it at start', async () => {
    const w = liveWorld();
    const dir = mkdtempSync(join(tmpdir(), 'wai-policy-'));
    dirs.push(dir);
    const file = join(dir, 'store.db');
    const a = open(w, new SqliteStore(file));
    const b = open(w, new SqliteStore(file));
    await a.policies.join();
    await b.policies.join();
    expect(a.policies.current.digest).toEqual(b.policies.current.digest);
    const next = { ...w.fields, ttl_s: 20 };
    const r = await a.policies.rotate(sign(w, next), 'operator');
    expect(a.announced()).toBe(1);
    expect(await b.policies.adopt()).toMatchObject({ kind: 'rotated', digest: r.digest });
    expect(await b.policies.adopt()).toBeUndefined();
    // An instance started with another policy file than the one in force puts its own in force
    // for all (a new file, as SIGHUP would).
    const c = open(w, new SqliteStore(file));
    await c.policies.join();
    expect(await a.policies.adopt()).toMatchObject({ digest: c.policies.current.digest });
    // One started with the file in force joins it without a rotation.
    const d = open(w, new SqliteStore(file));
    await d.policies.join();
    expect(d.metrics.rotations.get({ by: 'operator' })).toBe(0);
    expect(d.policies.current.digest).toEqual(c.policies.current.digest);
  });

  it("puts an operator's rotation on a shared store in force a lead ahead, at the same instant for every instance", async () => {
    const w = liveWorld();
    const dir = mkdtempSync(join(tmpdir(), 'wai-policy-'));
    dirs.push(dir);
    const file = join(dir, 'store.db');
    let now = T;
    const clock = { now: () => now, leadUs: 3_000_000n };
    const a = open(w, new SqliteStore(file), w.fields, clock);
    const b = open(w, new SqliteStore(file), w.fields, clock);
    await a.policies.join();
    await b.policies.join();
    const old = a.policies.current.digest;
    // B has not read the order of policies since: it may decide for half the lead.
    expect(b.policies.fresh(now + 1_499_999n)).toBe(true);
    expect(b.policies.fresh(now + 1_500_000n)).toBe(false);
    now += 200_000n;
    const next = { ...w.fields, ttl_s: 20 };
    const r = await a.policies.rotate(sign(w, next), 'operator');
    const at = now + 3_000_000n;
    expect(r.from).toBe(at);
    // Claimed, kept and announced; not in force before its instant, at A or at B.
    expect(a.announced()).toBe(1);
    expect(a.policies.current.digest).toEqual(old);
    expect(a.policies.pending).toBe(at);
    now += 1000n;
    expect(await b.policies.adopt()).toBeUndefined();
    expect(b.policies.pending).toBe(at);
    for (const x of [a, b]) {
      expect(x.policies.at(at - 1n).digest).toEqual(old);
      expect(x.policies.at(at).digest).toEqual(r.digest);
      expect(x.policies.pending).toBeUndefined();
      expect(x.metrics.rotations.get({ by: 'operator' })).toBe(1);
    }
    // The same file given to B (SIGHUP on every instance): no second claim.
    now = at + 10n;
    const c = open(w, new SqliteStore(file), next, clock);
    await c.policies.join();
    const again = await b.policies.rotate(sign(w, { ...w.fields, ttl_s: 21 }), 'operator');
    expect(await c.policies.rotate(sign(w, { ...w.fields, ttl_s: 21 }), 'operator')).toMatchObject({
      digest: again.digest,
      from: again.from,
    });
    expect((await c.store.policySchedule(w.room.roomId, now)).length).toBe(2);
  });

  it('joins at start under the policy in force, its own file claimed a lead ahead', async () => {
    const w = liveWorld();
    const dir = mkdtempSync(join(tmpdir(), 'wai-policy-'));
    dirs.push(dir);
    const file = join(dir, 'store.db');
    let now = T;
    const clock = { now: () => now, leadUs: 3_000_000n };
    const a = open(w, new SqliteStore(file), w.fields, clock);
    // The first to start, alone: its policy in force at once.
    await a.policies.join();
    expect(await a.store.policySchedule(w.room.roomId, now)).toMatchObject([{ seq: 1, at: T }]);
    now += 5_000_000n;
    const other = { ...w.fields, ttl_s: 30 };
    const b = open(w, new SqliteStore(file), other, clock);
    await b.policies.join();
    // B decides under A's policy until its own applies, for both.
    const from = now + 3_000_000n;
    expect(b.policies.current.digest).toEqual(a.policies.current.digest);
    expect(b.policies.pending).toBe(from);
    await a.policies.adopt();
    expect(a.policies.pending).toBe(from);
    expect(a.policies.at(from).policy.ttl_s).toBe(30);
    expect(b.policies.at(from).policy.ttl_s).toBe(30);
  });

  it("signs no live policy while an operator's waits for its instant", async () => {
    const w = liveWorld();
    let now = T;
    const { policies } = open(w, new SqliteStore(':memory:'), w.fields, {
      now: () => now,
      leadUs: 3_000_000n,
    });
    await policies.join();
    now += 10n;
    await policies.rotate(sign(w, { ...w.fields, ttl_s: 20 }), 'operator');
    const live = sign(w, { ...w.fields, ttl_s: 20, latency_ceiling_ms: 300 });
    const checked = checkPolicy(w.room, live, nodeBackend);
    if (!checked.ok) throw new Error(checked.problem);
    expect(
      await policies.serially(() => policies.tryRotate(checked.value, 'live')),
    ).toBeUndefined();
    now += 3_000_000n;
    policies.at(now);
    expect(await policies.serially(() => policies.tryRotate(checked.value, 'live'))).toMatchObject({
      by: 'live',
      from: now,
    });
  });

  it('runs changes one at a time, in the order asked', async () => {
    const w = liveWorld();
    const { policies } = open(w);
    const order: number[] = [];
    const slow = policies.serially(async () => {
      await new Promise((r) => setImmediate(r));
      order.push(1);
    });
    const fast = policies.serially(async () => {
      order.push(2);
    });
    const failing = policies.serially(async () => {
      throw new Error('no');
    });
    const after = policies.serially(async () => {
      order.push(3);
    });
    await Promise.all([slow, fast, failing.catch(() => {}), after]);
    expect(order).toEqual([1, 2, 3]);
  });
});
