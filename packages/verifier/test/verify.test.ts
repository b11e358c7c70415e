import {
  bytesEqual,
  digestOf,
  encodeDecision,
  fromHex,
  readDecision,
  readHopRecord,
  signDecision,
  toHex,
  unwrap,
} from '@wai-steering/wire';
import { describe, expect, it } from 'vitest';
import { outcomeJson, VerifierCache, verifyDecision } from '../src/index.js';
import {
  DEFAULT_PLAN,
  decide,
  hopRecord,
  keys,
  makeWorld,
  P,
  pub,
  T0,
  W,
} from './helpers/world.js';

function input(world: ReturnType<typeof makeWorld>, decision: Uint8Array, manifest?: string) {
  return {
    room: world.room,
    keyLog: world.keyLog,
    policy: world.policy,
    decision,
    records: world.records,
    ...(manifest === undefined ? {} : { manifest }),
  };
}

/** Re-signs a decision after changing its fields. */
function resign(
  decision: Uint8Array,
  change: (d: ReturnType<typeof readDecision> & { ok: true }) => Parameters<typeof signDecision>[0],
) {
  const read = readDecision(decision);
  if (!read.ok) throw read.refusal;
  return signDecision(change(read), keys.steer, { check: false });
}

describe('verifyDecision: accepted (§9.1, §9.3)', () => {
  const world = makeWorld();
  const made = decide(world);

  it('accepts a decision made the way a server makes it, with its manifest', () => {
    const outcome = verifyDecision(input(world, made.decision, made.manifest));
    expect(outcome.outcome).toBe('accept');
    if (outcome.outcome !== 'accept') return;
    // By the plan: per period, cdn-a spends 4 J for 1 MB, cdn-b 3 J, cdn-c 6 J (all class 4).
    expect(outcome.priority).toEqual(['cdn-b', 'cdn-a', 'cdn-c']);
    expect(outcome.reason).toBe('rank');
    expect(outcome.ttl).toBe(300);
    expect(outcome.digest).toBe(toHex(made.digest));
    expect(outcome.manifest).toBe(made.manifest);
    expect(outcome.uri).toBe(`https://steer.example/decisions/${toHex(made.digest)}`);
    // J and D over three periods, from the plan's arithmetic.
    expect(outcome.pathways[0]).toEqual({
      id: 'cdn-a',
      status: 'figure',
      class: 4,
      joules: String(3n * (3_000_000n + 1_000_000n)),
      delivery: String(3n * 1_000_000n),
      limits: { latency: true, quality: true, capacity: true },
    });
  });

  it('writes C8 JSON with its members in C8 order', () => {
    const json = outcomeJson(verifyDecision(input(world, made.decision)));
    expect(json.startsWith('{"outcome":"accept","digest":"')).toBe(true);
    expect(Object.keys(JSON.parse(json))).toEqual([
      'outcome',
      'digest',
      'priority',
      'ttl',
      'reason',
      'pathways',
      'manifest',
      'uri',
    ]);
  });

  it('takes the records as a set, in any order, with others beside them', () => {
    const shuffled = [...world.records].reverse();
    const extra = hopRecord(world.roomId, 0, T0, T0 + P, DEFAULT_PLAN[0]![0]!);
    const outcome = verifyDecision({
      ...input(world, made.decision),
      records: [extra, ...shuffled],
    });
    expect(outcome.outcome).toBe('accept');
  });
});

describe('verifyDecision: where it stops (§9.1, C9)', () => {
  const world = makeWorld();
  const made = decide(world);

  it('refuses a manifest with a trailing newline or uppercase hex (C9)', () => {
    expect(verifyDecision(input(world, made.decision, `${made.manifest}\n`))).toEqual({
      outcome: 'refuse',
      reason: 'manifest_mismatch',
      where: { at: 'manifest' },
    });
    const upper = made.manifest.replace(toHex(made.digest), toHex(made.digest).toUpperCase());
    expect(verifyDecision(input(world, made.decision, upper)).outcome).toBe('refuse');
  });

  it('refuses a record left out as record_missing at its place', () => {
    const d = unwrap(readDecision(made.decision));
    const named = toHex(d.pathways[1]!.evidence[2]!);
    const records = world.records.filter(
      (r) => toHex(digestOf(unwrap(readHopRecord(r)))) !== named,
    );
    expect(verifyDecision({ ...input(world, made.decision), records })).toEqual({
      outcome: 'refuse',
      reason: 'record_missing',
      where: { at: 'evidence', pathway: 1, record: 2 },
    });
  });

  it('finds a record with trailing bytes by its digest, then refuses it as malformed (C9)', () => {
    const d = unwrap(readDecision(made.decision));
    const target = toHex(d.pathways[0]!.evidence[0]!);
    const records = world.records.map((r) =>
      toHex(digestOf(unwrap(readHopRecord(r)))) === target ? new Uint8Array([...r, 0]) : r,
    );
    expect(verifyDecision({ ...input(world, made.decision), records })).toEqual({
      outcome: 'refuse',
      reason: 'malformed',
      where: { at: 'evidence', pathway: 0, record: 0 },
    });
  });

  it('uses the first given record of a digest (C9)', () => {
    const d = unwrap(readDecision(made.decision));
    const target = toHex(d.pathways[0]!.evidence[1]!);
    const original = world.records.find(
      (r) => toHex(digestOf(unwrap(readHopRecord(r)))) === target,
    )!;
    const badSig = original.slice();
    badSig[badSig.length - 1]! ^= 1;
    const first = verifyDecision({
      ...input(world, made.decision),
      records: [badSig, ...world.records],
    });
    expect(first).toEqual({
      outcome: 'refuse',
      reason: 'bad_signature',
      where: { at: 'evidence', pathway: 0, record: 1 },
    });
    const second = verifyDecision({
      ...input(world, made.decision),
      records: [...world.records, badSig],
    });
    expect(second.outcome).toBe('accept');
  });

  it('refuses records out of §5.2 order as decision_invalid at step 4.6', () => {
    const changed = resign(made.decision, ({ value }) => ({
      ...value,
      pathways: value.pathways.map((p, i) =>
        i === 2 ? { ...p, evidence: [p.evidence[1]!, p.evidence[0]!, ...p.evidence.slice(2)] } : p,
      ),
    }));
    expect(verifyDecision(input(world, changed))).toEqual({
      outcome: 'refuse',
      reason: 'decision_invalid',
      where: { at: 'evidence', pathway: 2, record: 1 },
    });
  });

  it('refuses a record named under another pathway as evidence_not_on_pathway', () => {
    const changed = resign(made.decision, ({ value }) => {
      const moved = value.pathways[0]!.evidence[0]!;
      return {
        ...value,
        pathways: value.pathways.map((p, i) =>
          i === 0
            ? { ...p, evidence: p.evidence.slice(1) }
            : i === 1
              ? { ...p, evidence: [moved, ...p.evidence] }
              : p,
        ),
      };
    });
    expect(verifyDecision(input(world, changed))).toEqual({
      outcome: 'refuse',
      reason: 'evidence_not_on_pathway',
      where: { at: 'evidence', pathway: 1, record: 0 },
    });
  });

  it('refuses a decision whose t moves the window as evidence_outside_window', () => {
    const changed = resign(made.decision, ({ value }) => ({ ...value, t: value.t + P }));
    expect(verifyDecision(input(world, changed))).toEqual({
      outcome: 'refuse',
      reason: 'evidence_outside_window',
      where: { at: 'evidence', pathway: 0, record: 0 },
    });
  });

  it('refuses a figure that the records do not give as evidence_mismatch', () => {
    const changed = resign(made.decision, ({ value }) => ({
      ...value,
      pathways: value.pathways.map((p, i) => (i === 1 ? { ...p, joules: p.joules - 1n } : p)),
    }));
    expect(verifyDecision(input(world, changed))).toEqual({
      outcome: 'refuse',
      reason: 'evidence_mismatch',
      where: { at: 'pathway', pathway: 1 },
    });
  });

  it('refuses another priority as decision_mismatch, and checks every output', () => {
    const swapped = resign(made.decision, ({ value }) => ({
      ...value,
      priority: [value.priority[0]!, value.priority[2]!, value.priority[1]!],
    }));
    expect(verifyDecision(input(world, swapped))).toEqual({
      outcome: 'refuse',
      reason: 'decision_mismatch',
      where: { at: 'output' },
    });
    const ttl = resign(made.decision, ({ value }) => ({ ...value, ttl: value.ttl + 1 }));
    expect(verifyDecision(input(world, ttl)).outcome).toBe('refuse');
    const draw = resign(made.decision, ({ value }) => ({
      ...value,
      draw: (value.draw + 1) % 1_000_000,
    }));
    expect(verifyDecision(input(world, draw)).outcome).toBe('refuse');
    const limits = resign(made.decision, ({ value }) => ({
      ...value,
      pathways: value.pathways.map((p, i) => (i === 0 ? { ...p, limits: 3 } : p)),
    }));
    expect(verifyDecision(input(world, limits)).outcome).toBe('refuse');
  });

  it('refuses a decision whose policy is not the given one as record_missing at decision', () => {
    const changed = resign(made.decision, ({ value }) => ({
      ...value,
      policy: new Uint8Array(32),
    }));
    expect(verifyDecision(input(world, changed))).toEqual({
      outcome: 'refuse',
      reason: 'record_missing',
      where: { at: 'decision' },
    });
  });

  it('refuses a decision signer without energy/<label> for a class it states (C6)', () => {
    const changed = signDecision(
      { ...unwrap(readDecision(made.decision)), signer: pub(keys.hops[0]!) },
      keys.hops[0]!,
    );
    expect(verifyDecision(input(world, changed))).toEqual({
      outcome: 'refuse',
      reason: 'signer_not_authorised',
      where: { at: 'decision' },
    });
  });
});

describe('verifyDecision: what has no figure (§5.4, §9.1 step 5)', () => {
  it('ranks a pathway with an unmetered hop last though its metered hop is cheapest', () => {
    const plan = structuredClone(DEFAULT_PLAN);
    plan[2] = [
      { class: 4, joules: 1n, bytes: 1_000_000n },
      { class: 0, joules: 0n, bytes: 0n },
    ];
    const world = makeWorld(plan);
    const made = decide(world);
    const outcome = verifyDecision(input(world, made.decision, made.manifest));
    expect(outcome.outcome).toBe('accept');
    if (outcome.outcome !== 'accept') return;
    expect(outcome.priority).toEqual(['cdn-b', 'cdn-a', 'cdn-c']);
    expect(outcome.pathways[2]!.status).toBe('unmetered');
    // Stating the metered hop's figure alone is unmetered_as_zero, before evidence_mismatch.
    const lie = resign(made.decision, ({ value }) => ({
      ...value,
      pathways: value.pathways.map((p, i) =>
        i === 2 ? { ...p, status: 0, class: 4, joules: 3n, delivery: 3_000_000n } : p,
      ),
    }));
    expect(verifyDecision(input(world, lie))).toEqual({
      outcome: 'refuse',
      reason: 'unmetered_as_zero',
      where: { at: 'pathway', pathway: 2 },
    });
  });

  it('refuses classes summed, and prefers unknown_preferred when a figure-less first is stated', () => {
    const plan = structuredClone(DEFAULT_PLAN);
    plan[0] = [
      { class: 2, joules: 3_000_000n, bytes: 1_000_000n },
      { class: 4, joules: 1_000_000n, bytes: 0n },
    ];
    const world = makeWorld(plan);
    const made = decide(world);
    const outcome = verifyDecision(input(world, made.decision, made.manifest));
    expect(outcome.outcome === 'accept' && outcome.pathways[0]!.status).toBe('mixed');
    const summed = resign(made.decision, ({ value }) => ({
      ...value,
      pathways: value.pathways.map((p, i) =>
        i === 0 ? { ...p, status: 0, class: 4, joules: 12_000_000n, delivery: 3_000_000n } : p,
      ),
    }));
    expect(verifyDecision(input(world, summed))).toEqual({
      outcome: 'refuse',
      reason: 'classes_summed',
      where: { at: 'pathway', pathway: 0 },
    });
    // cdn-a (mixed, no figure) stated first while cdn-b has a figure.
    const preferred = resign(made.decision, ({ value }) => ({
      ...value,
      priority: [0, ...value.priority.filter((p) => p !== 0)],
    }));
    expect(verifyDecision(input(world, preferred))).toEqual({
      outcome: 'refuse',
      reason: 'unknown_preferred',
      where: { at: 'output' },
    });
  });

  it('states a pathway with a missing period as stale, and accepts it', () => {
    const world = makeWorld();
    const dropped = world.records.filter((r) => {
      const rec = unwrap(readHopRecord(r));
      return !(bytesEqual(rec.hop, pub(keys.hops[0]!)) && rec.start === T0 - W + P);
    });
    const store = new (world.store.constructor as new () => typeof world.store)();
    for (const r of dropped) {
      const rec = unwrap(readHopRecord(r));
      store.add(rec, digestOf(rec));
    }
    const w2 = { ...world, records: dropped, store };
    const made = decide(w2);
    const outcome = verifyDecision(input(w2, made.decision, made.manifest));
    expect(outcome.outcome).toBe('accept');
    if (outcome.outcome !== 'accept') return;
    expect(outcome.pathways[0]!.status).toBe('stale');
    expect(outcome.priority).toEqual(['cdn-b', 'cdn-c', 'cdn-a']);
  });
});

describe('VerifierCache: an audit verifies each record signature once', () => {
  it('verifies the records of many decisions over one window once each', () => {
    const world = makeWorld();
    const cache = new VerifierCache();
    const decisions = Array.from({ length: 20 }, (_, i) =>
      decide(
        world,
        { pathway: i % 3, throughput: null, buffer: null },
        {
          session: new Uint8Array(16).fill(i),
        },
      ),
    );
    for (const d of decisions) {
      expect(verifyDecision(input(world, d.decision, d.manifest), { cache }).outcome).toBe(
        'accept',
      );
    }
    // 3 pathways × 2 hops × 3 periods, each verified once across the 20 decisions.
    expect(cache.signaturesVerified).toBe(18);
  });
});

describe('caller misuse', () => {
  it('throws a TypeError for records that are not bytes', () => {
    const world = makeWorld();
    const made = decide(world);
    expect(() =>
      verifyDecision({ ...input(world, made.decision), records: ['x' as unknown as Uint8Array] }),
    ).toThrow(TypeError);
  });

  it('never throws on arbitrary decision bytes', () => {
    const world = makeWorld();
    for (const hex of [
      '',
      '57534431',
      '5753443101',
      toHex(encodeDecision(unwrap(readDecision(decide(world).decision)))),
    ]) {
      const outcome = verifyDecision(input(world, fromHex(hex)));
      expect(outcome.outcome).toBe('refuse');
    }
  });
});
