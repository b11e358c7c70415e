import { drawOf } from '@wai-steering/rule';
import { readDecision, toHex, unwrap } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { afterEach, describe, expect, it } from 'vitest';
import { ArchiveError, auditDecisions, parseArchiveMeta, renderHtml } from '../src/index.js';
import { auditArchive, readArchiveMaterials } from '../src/node.js';
import {
  makeWorld,
  SimServer,
  sessionOf,
  T0,
  tempDir,
  type World,
  writeArchive,
} from './helpers/world.js';

/** A deterministic stream of numbers in [0, 1). */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * Sessions asking again and again over `seconds`: each asks after 0.3 s to 25 s (past TTL + grace
 * now and then, so that sessions stop counting and come back), with a report from its pathway.
 */
function run(
  sim: SimServer,
  sessions: number,
  seconds: number,
  seed = 1,
  lie?: (t: bigint, loads: number[]) => number[],
) {
  const rand = prng(seed);
  const next: { at: bigint; n: number }[] = [];
  for (let n = 0; n < sessions; n++) next.push({ at: T0 + BigInt(Math.floor(rand() * 5e6)), n });
  const end = T0 + BigInt(seconds) * 1_000_000n;
  const current = new Map<number, number>();
  for (;;) {
    next.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
    const head = next[0]!;
    if (head.at >= end) break;
    const c = current.get(head.n);
    const made = sim.decide(
      head.at,
      sessionOf(head.n),
      {
        pathway: c ?? null,
        throughput: c === undefined ? null : 5_000_000n,
        buffer: c === undefined ? null : 20_000n,
      },
      lie === undefined ? undefined : (loads) => lie(head.at, loads),
    );
    current.set(head.n, made.first);
    head.at += BigInt(300_000 + Math.floor(rand() * 24_700_000));
  }
}

function materials(world: World, records = world.records) {
  return { room: world.room, keyLog: world.keyLog, policies: [world.policy], records };
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

describe('an honest log', () => {
  const world = makeWorld(90);
  const sim = new SimServer(world);
  run(sim, 30, 80);

  it('has no findings: every decision verifies and every stated load replays', () => {
    const { result } = auditDecisions(
      materials(world),
      sim.made.map((m) => m.bytes),
      { roomId: world.roomId, graceS: 10, loadTolerance: 0, backend: nodeBackend },
    );
    expect(sim.made.length).toBeGreaterThan(200);
    expect(result.decisions).toBe(sim.made.length);
    expect(result.accepted).toBe(sim.made.length);
    expect(result.refused).toEqual([]);
    expect(result.loads.checked).toBe(sim.made.length);
    expect(result.loads.inconsistent).toEqual([]);
    expect(result.sessions).toBe(30);
    expect(result.findings).toBe(0);
    // Sessions did stop counting and come back: the loads went down as well as up.
    const totals = sim.made.map((m) => m.loads.reduce((a, b) => a + b, 0));
    expect(totals.some((n, i) => i > 0 && n < totals[i - 1]!)).toBe(true);
  });

  it('finds the loads a server that forgets the grace would state', () => {
    // The same decisions, audited as if the grace were 0: some stated loads then count sessions
    // the replay has let go.
    const { result } = auditDecisions(
      materials(world),
      sim.made.map((m) => m.bytes),
      {
        roomId: world.roomId,
        graceS: 0,
        loadTolerance: 0,
        backend: nodeBackend,
      },
    );
    expect(result.loads.inconsistent.length).toBeGreaterThan(0);
    expect(result.findings).toBe(result.loads.inconsistent.length);
  });

  it('reports each policy with its span and the hops of each pathway', () => {
    const { result } = auditDecisions(
      materials(world),
      sim.made.map((m) => m.bytes),
      {
        roomId: world.roomId,
        graceS: 10,
        backend: nodeBackend,
      },
    );
    expect(result.policies).toEqual([
      {
        digest: toHex(world.policyDigest),
        signer: toHex(unwrap(readDecision(sim.made[0]!.bytes)).signer),
        invalid: null,
        first: sim.made[0]!.t.toString(),
        last: sim.made.at(-1)!.t.toString(),
        decisions: sim.made.length,
        changes: [],
      },
    ]);
    // Every pathway has an interior hop: one span per period, 1 000 000 bytes out and in.
    expect(result.hops.length).toBe(world.records.length / 2);
    for (const h of result.hops) {
      expect([h.interior_out, h.edge_in, h.interior_records, h.edge_records]).toEqual([
        '1000000',
        '1000000',
        1,
        1,
      ]);
    }
  });

  it("the HTML report's hops table: sent and received side by side, delivered for scale", () => {
    const { result, series } = auditDecisions(
      materials(world),
      sim.made.map((m) => m.bytes),
      { roomId: world.roomId, graceS: 10, backend: nodeBackend },
    );
    const span = result.hops[0]!;
    // A shield sent its edge 6 MB, which the edge received, of the 120 MB it delivered: the
    // demo's figures, once read as interior hops sending 20 times what their edges receive.
    const hops = [
      { ...span, interior_out: '6000000', edge_in: '6000000', edge_out: '120000000' },
      { ...span, interior_out: '6000000', edge_in: '5400000', edge_out: '120000000' },
    ];
    const html = renderHtml({ ...result, hops }, series);
    const section = html.slice(html.indexOf('Per pathway with an interior hop'));
    expect(section).toMatch(
      /Sent and received are the same\s+bytes counted at both ends of one link/,
    );
    expect(section).toMatch(/its cache's hit ratio/);
    const rows = [...section.matchAll(/<tr>(.*?)<\/tr>/g)].map((m) =>
      [...m[1]!.matchAll(/<t[hd]>(.*?)<\/t[hd]>/g)].map((c) => c[1]),
    );
    expect(rows[0]).toEqual([
      'pathway',
      'start',
      'end',
      'sent by interior hops',
      'received by edges',
      'received / sent',
      'delivered by edges',
      'edge cache hits',
    ]);
    expect(rows[1]!.slice(3)).toEqual(['6 MB', '6 MB', '100.0%', '120 MB', '95.0%']);
    // A hop that misstates what it moved shows as received / sent away from 100 %.
    expect(rows[2]!.slice(3)).toEqual(['6 MB', '5.4 MB', '90.0%', '120 MB', '95.5%']);
  });

  it('refuses to audit another room (pinned by its id)', () => {
    const other = new Uint8Array(32).fill(1);
    expect(() =>
      auditDecisions(materials(world), [], { roomId: other, graceS: 10, backend: nodeBackend }),
    ).toThrow(ArchiveError);
  });

  it('reads and audits the same from an archive on disk, with the meta it was written with', async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    await writeArchive(
      dir,
      world,
      sim.made.map((m) => m.bytes),
      { graceS: 10 },
    );
    const m = readArchiveMaterials(dir);
    expect(m.meta).toEqual(
      parseArchiveMeta(JSON.stringify({ room: toHex(world.roomId), grace_s: 10 })),
    );
    const { result } = await auditArchive(dir, { roomId: world.roomId });
    expect(result.findings).toBe(0);
    expect(result.decisions).toBe(sim.made.length);
    await expect(auditArchive(dir, { roomId: new Uint8Array(32) })).rejects.toThrow(ArchiveError);
  });
});

describe('jobs', () => {
  const world = makeWorld(70);
  const sim = new SimServer(world);
  run(sim, 400, 60, 5);

  it('two and three jobs give what one gives, findings included, batches split between threads', async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    // A tampered decision every 301: they fall in batches of this thread and of the workers.
    const tampered = new Set<number>();
    const decisions = sim.made.map((m, i) => {
      if (i % 301 !== 7) return m.bytes;
      tampered.add(i);
      const b = m.bytes.slice();
      b[b.length - 1]! ^= 0x01;
      return b;
    });
    expect(decisions.length).toBeGreaterThan(6 * 256);
    await writeArchive(dir, world, decisions, { graceS: 10 });
    const json = (v: unknown) =>
      JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? String(x) : x));
    const one = await auditArchive(dir, { roomId: world.roomId, jobs: 1 });
    expect(one.result.refused.map((r) => r.digest)).toEqual(
      [...tampered].map((i) => sim.made[i]!.digest),
    );
    for (const jobs of [2, 3]) {
      const many = await auditArchive(dir, { roomId: world.roomId, jobs });
      expect(json(many.result)).toBe(json(one.result));
      expect(json(many.series)).toBe(json(one.series));
    }
  });
});

describe('a server that states a pathway full during a stretch', () => {
  const world = makeWorld(90, {});
  const sim = new SimServer(world);
  const from = T0 + 30_000_000n;
  const to = T0 + 45_000_000n;
  // cdn-b (index 1, the cheapest) is stated at 1 000 sessions in [from, to).
  run(sim, 30, 80, 7, (t, loads) =>
    t >= from && t < to ? loads.map((n, i) => (i === 1 ? 1000 : n)) : loads,
  );

  it('has exactly the decisions of the stretch flagged, on that pathway', () => {
    const { result } = auditDecisions(
      materials(world),
      sim.made.map((m) => m.bytes),
      {
        roomId: world.roomId,
        graceS: 10,
        backend: nodeBackend,
      },
    );
    const stretch = sim.made.filter((m) => m.t >= from && m.t < to);
    expect(stretch.length).toBeGreaterThan(10);
    expect(result.refused).toEqual([]);
    expect(result.loads.inconsistent.map((l) => l.digest)).toEqual(stretch.map((m) => m.digest));
    for (const l of result.loads.inconsistent) {
      expect(l.pathway).toBe('cdn-b');
      expect(l.stated).toBe(1000);
    }
    expect(result.findings).toBe(stretch.length);
  });
});

describe('the bands', () => {
  const SHARE = 100_000; // cdn-c: 10 % of sessions from its band [0, 100 000)
  const base = makeWorld(4);
  const world = makeWorld(4, {
    pathways: base.policyFields.pathways.map((p, i) =>
      i === 0 ? { ...p, min_share_ppm: SHARE } : p,
    ),
  });
  const inBand = (n: number): boolean =>
    drawOf(world.policyDigest, sessionOf(n), nodeBackend) < SHARE;

  function audit(sessions: number[]) {
    const sim = new SimServer(world);
    sessions.forEach((n, i) => {
      sim.decide(T0 + BigInt(i) * 1000n, sessionOf(n));
    });
    return auditDecisions(
      materials(world),
      sim.made.map((m) => m.bytes),
      {
        roomId: world.roomId,
        graceS: 10,
        backend: nodeBackend,
      },
    ).result;
  }

  it('an honest server: the band holds about its share, not flagged', () => {
    const sessions = Array.from({ length: 600 }, (_, n) => n);
    const k = sessions.filter(inBand).length;
    const result = audit(sessions);
    expect(result.shares).toHaveLength(1);
    const s = result.shares[0]!;
    expect([s.pathway, s.min_share_ppm, s.sessions, s.in_band]).toEqual(['cdn-a', SHARE, 600, k]);
    // Independently: z = (k − 60) / √(600 × 0.1 × 0.9).
    expect(s.z).toBeCloseTo((k - 60) / Math.sqrt(54), 2);
    expect(s.flagged).toBe(false);
    expect(result.findings).toBe(0);
  });

  it('a server that mints only sessions outside the band: flagged, |z| ≥ 4', () => {
    const sessions: number[] = [];
    for (let n = 0; sessions.length < 600; n++) if (!inBand(n)) sessions.push(n);
    const result = audit(sessions);
    const s = result.shares[0]!;
    expect(s.in_band).toBe(0);
    expect(s.z).toBeCloseTo(-60 / Math.sqrt(54), 2);
    expect(Math.abs(s.z)).toBeGreaterThanOrEqual(4);
    expect(s.flagged).toBe(true);
    expect(result.findings).toBe(1);
    expect(result.loads.inconsistent).toEqual([]);
  });
});

describe('refusals', () => {
  const world = makeWorld(40);
  const sim = new SimServer(world);
  run(sim, 10, 30, 3);

  it('a tampered decision is refused bad_signature at decision, the others accepted', () => {
    const k = 17;
    const tampered = sim.made.map((m, i) => {
      if (i !== k) return m.bytes;
      const b = m.bytes.slice();
      b[b.length - 70]! ^= 1; // inside the body: the priority's count or the reason
      return b;
    });
    const { result } = auditDecisions(materials(world), tampered, {
      roomId: world.roomId,
      graceS: 10,
      backend: nodeBackend,
    });
    expect(result.refused).toHaveLength(1);
    const r = result.refused[0]!;
    expect(r.reason).toMatch(/^(bad_signature|decision_invalid|malformed|truncated)$/);
    expect(r.where).toEqual({ at: 'decision' });
    expect(result.accepted).toBe(sim.made.length - 1);
  });

  it('a flipped signature: bad_signature, its digest the decision’s own', () => {
    const k = 5;
    const tampered = sim.made.map((m, i) => {
      if (i !== k) return m.bytes;
      const b = m.bytes.slice();
      b[b.length - 1]! ^= 0x01;
      return b;
    });
    const { result } = auditDecisions(materials(world), tampered, {
      roomId: world.roomId,
      graceS: 10,
      backend: nodeBackend,
    });
    expect(result.refused).toEqual([
      {
        digest: sim.made[k]!.digest,
        reason: 'bad_signature',
        where: { at: 'decision' },
        t: sim.made[k]!.t.toString(),
      },
    ]);
    expect(result.findings).toBe(1);
  });

  it('a withheld record: record_missing at evidence, the pathway and its place, for exactly the decisions naming it', () => {
    // Withhold a record that some decisions name.
    const named = unwrap(readDecision(sim.made[20]!.bytes)).pathways[1]!.evidence[2]!;
    const withheld = toHex(named);
    const records = world.records.filter(
      (r) => toHex(nodeBackend.sha256(r.subarray(0, r.length - 64))) !== withheld,
    );
    expect(records.length).toBe(world.records.length - 1);
    const expected = sim.made.flatMap((m) => {
      const d = unwrap(readDecision(m.bytes));
      for (let p = 0; p < d.pathways.length; p++) {
        const j = d.pathways[p]!.evidence.findIndex((e) => toHex(e) === withheld);
        if (j >= 0)
          return [
            {
              digest: m.digest,
              reason: 'record_missing',
              where: { at: 'evidence', pathway: p, record: j },
              t: m.t.toString(),
            },
          ];
      }
      return [];
    });
    expect(expected.length).toBeGreaterThan(0);
    const { result } = auditDecisions(
      materials(world, records),
      sim.made.map((m) => m.bytes),
      {
        roomId: world.roomId,
        graceS: 10,
        backend: nodeBackend,
      },
    );
    expect(result.refused).toEqual(expected);
    expect(result.accepted).toBe(sim.made.length - expected.length);
  });
});
