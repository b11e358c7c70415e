// Live capacity intake: a site's report verified and held, kept for the other instances, read
// back by them, and a policy signed when the live values call for it — at most once a period.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryEvidenceStore } from '@wai-steering/evidence';
import { signPolicy, toHex } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { afterEach, describe, expect, it } from 'vitest';
import { openPolicies } from '../../src/engine/live-intake.js';
import { checkPolicy } from '../../src/engine/policy.js';
import { Health } from '../../src/health.js';
import { Metrics } from '../../src/metrics.js';
import { SessionTable } from '../../src/sessions.js';
import { SqliteStore } from '../../src/store/sqlite/index.js';
import { type LiveWorld, liveWorld, signReport } from '../live/world.js';

const T0 = 1_800_000_000_000_000n + 500_000n;
const stores: SqliteStore[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function open(w: LiveWorld, store: SqliteStore, clock: { us: bigint }) {
  stores.push(store);
  const metrics = new Metrics();
  const announced: string[] = [];
  const lines: string[] = [];
  const health = new Health({ log: (l) => lines.push(l) });
  const bytes = signPolicy(w.fields, w.steering.secretKey, { backend: nodeBackend });
  const checked = checkPolicy(w.room, bytes, nodeBackend);
  if (!checked.ok) throw new Error(checked.problem);
  const { policies, live } = openPolicies(
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
      sessions: new SessionTable(w.fields.pathways.map((p) => p.id)),
      metrics,
      now: () => clock.us,
      announce: (what) => announced.push(what),
      closing: () => false,
      // No session is steered in these tests: the load at any second is 0.
      loadAt: () => 0,
      health,
    },
    checked.value,
    { pathways: new Set([1]), capacityThresholdPpm: 100_000, latencyThresholdMs: 10 },
  );
  return { policies, live: live!, metrics, announced, health, lines };
}

function report(w: LiveWorld, clock: { us: bigint }, gas: number, hop = 2) {
  return signReport(w.hops[hop]!, {
    room: toHex(w.room.roomId),
    pathway: 'cdn-b',
    gas,
    t: String(clock.us),
    expires: String(clock.us + 3_000_000n),
    window_us: '1000000',
  });
}

function sharedStore(): string {
  const dir = mkdtempSync(join(tmpdir(), 'wai-live-'));
  dirs.push(dir);
  return join(dir, 'store.db');
}

describe('LiveIntake', () => {
  it('takes a report, signs a policy whose capacity follows, and ignores a replay', async () => {
    const w = liveWorld();
    const clock = { us: T0 };
    const { policies, live, metrics, announced } = open(w, new SqliteStore(':memory:'), clock);
    await policies.join();
    const jws = await report(w, clock, 5);
    const r = await live.offer(jws);
    expect(r).toMatchObject({ kind: 'report', taken: true, rotated: { by: 'live' } });
    expect(policies.current.policy.pathways.map((p) => p.capacity)).toEqual([500, 5]);
    // Only pathway 1 takes live values; the template stays the operator's.
    expect(toHex(policies.templateDigest)).not.toBe(toHex(policies.current.digest));
    expect(live.values().map((v) => v.source)).toEqual(['template', 'reports']);
    expect(await live.offer(jws)).toMatchObject({ kind: 'report', taken: false });
    expect(metrics.capacityReports.get({ result: 'taken' })).toBe(1);
    expect(metrics.capacityReports.get({ result: 'older' })).toBe(1);
    expect(announced).toEqual(['capacity', 'policy']);
  });

  it('refuses a report it cannot verify, with the reason', async () => {
    const w = liveWorld();
    const clock = { us: T0 };
    const { live, metrics } = open(w, new SqliteStore(':memory:'), clock);
    expect(await live.offer(await report(w, clock, 5, 0))).toMatchObject({
      kind: 'report_refused',
      reason: 'unknown_hop',
    });
    expect(await live.offer('not.a.jws')).toMatchObject({ reason: 'malformed_report' });
    expect(metrics.capacityReports.get({ result: 'unknown_hop' })).toBe(1);
  });

  it('signs at most one policy a period, and one when a report ages out', async () => {
    const w = liveWorld();
    const clock = { us: T0 };
    const { policies, live } = open(w, new SqliteStore(':memory:'), clock);
    await policies.join();
    await live.offer(await report(w, clock, 5));
    clock.us += 10_000n;
    const second = await live.offer(await report(w, clock, 200));
    expect(second).toMatchObject({ kind: 'report', taken: true });
    expect((second as { rotated?: unknown }).rotated).toBeUndefined();
    expect(policies.current.policy.pathways[1]!.capacity).toBe(5);
    // The next period: the value held is signed.
    clock.us += 2_000_000n;
    expect(await live.tick()).toMatchObject({ by: 'live' });
    expect(policies.current.policy.pathways[1]!.capacity).toBe(200);
    expect(await live.tick()).toBeUndefined();
    // Past its expiry the site counts as GAS 0 (CATS's age-out).
    clock.us += 4_000_000n;
    expect(await live.tick()).toMatchObject({ by: 'live' });
    expect(policies.current.policy.pathways[1]!.capacity).toBe(0);
    expect(live.values()[1]!.source).toBe('expired');
  });

  it('keeps reports for the other instances, which read them back and follow the policy', async () => {
    const w = liveWorld();
    const clock = { us: T0 };
    const file = sharedStore();
    const a = open(w, new SqliteStore(file), clock);
    const b = open(w, new SqliteStore(file), clock);
    await a.policies.join();
    await b.policies.join();
    await a.live.offer(await report(w, clock, 7));
    await b.policies.adopt();
    await b.live.readReports();
    expect(b.live.values()[1]).toMatchObject({ capacity: 7, source: 'reports' });
    expect(b.policies.current.digest).toEqual(a.policies.current.digest);
    expect(b.metrics.capacityReports.get({ result: 'shared' })).toBe(1);
    // Read once: a second pass takes nothing new.
    await b.live.readReports();
    expect(b.metrics.capacityReports.get({ result: 'shared' })).toBe(1);
  });
});
