import {
  EvidenceCache,
  MemoryEvidenceStore,
  selectEvidence,
  windowAt,
} from '@wai-steering/evidence';
import {
  digestOf,
  encodeHopRecord,
  type HopRecordFields,
  nobleBackend,
  type PolicyFields,
  DECISION_REASON as R,
  REASON_NAME,
  readDecision,
  readPolicy,
  STATUS,
  signPolicy,
  unwrap,
} from '@wai-steering/wire';
import { describe, expect, it } from 'vitest';
import { assembleAndSign, assembleDecision, drawOf } from '../src/index.js';
import { key, policyOf, report } from './helpers/rule-fixtures.js';

const secret = new Uint8Array(32).fill(7);
const signer = nobleBackend.publicKey(secret);
const fields: PolicyFields = { ...policyOf([{ id: 'a' }, { id: 'b' }, { id: 'c' }]), signer };
const policy = unwrap(readPolicy(signPolicy(fields, secret)));
const policyDigest = digestOf(policy);
const P = policy.period_us;
const session = Uint8Array.from({ length: 16 }, (_, i) => i + 1);

function record(
  hop: Uint8Array,
  k: number,
  cls: number,
  joules: bigint,
  bytes: bigint,
): HopRecordFields {
  return {
    room: policy.room,
    hop,
    start: BigInt(k) * P,
    end: BigInt(k + 1) * P,
    sessions: 1,
    class: cls,
    joules,
    subscriber_us: [0n, 0n, 0n, 0n, 0n, 0n, 0n, 0n],
    tracks: [{ track: 1, kind: 1, direction: 2, bytes }],
  };
}

/** a: class 4, 10 µJ/B; b: class 4, 12 µJ/B; c: nothing (stale). Periods 0 to 19. */
function store(): MemoryEvidenceStore {
  const s = new MemoryEvidenceStore();
  for (let k = 0; k < 20; k++) {
    for (const r of [record(key(0), k, 4, 1_000n, 100n), record(key(1), k, 4, 1_200n, 100n)]) {
      s.add(r, nobleBackend.sha256(encodeHopRecord(r)));
    }
  }
  return s;
}

const t = 10n * P + policy.lag_us; // window [4P, 10P)

describe('assembleDecision (§7.1)', () => {
  const evidence = new EvidenceCache(policy, store()).at(t);
  const base = {
    signer,
    policy,
    policyDigest,
    t,
    session,
    protocol: 'hls' as const,
    evidence,
    loads: [3, 0, 1],
  };

  it('states the draw, the report, each pathway and the rule output; it signs and reads back', () => {
    const d = assembleDecision({
      ...base,
      report: report({ pathway: 1, throughput: 10_000_000n }),
    });
    expect(d.room).toEqual(policy.room);
    expect(d.policy).toEqual(policyDigest);
    expect(d.draw).toBe(drawOf(policyDigest, session));
    expect(d.protocol).toBe(1);
    expect(d.report).toEqual({ present: 3, pathway: 1, throughput: 10_000_000n, buffer: 0n });
    expect(
      d.pathways.map((p) => [p.load, p.limits, p.status, p.class, p.joules, p.delivery]),
    ).toEqual([
      [3, 7, STATUS.figure, 4, 6_000n, 600n],
      [0, 7, STATUS.figure, 4, 7_200n, 600n],
      [1, 7, STATUS.stale, 0, 0n, 0n],
    ]);
    expect(d.pathways[0]!.evidence).toEqual(evidence.pathways[0]!.named.map((n) => n.digest));
    expect(d.pathways[0]!.evidence.length).toBe(6);
    expect(d.pathways[2]!.evidence).toEqual([]);
    // a beats b by 20 % > h = 5 %: rank.
    expect([d.reason, d.ttl, d.priority]).toEqual([R.rank, 300, [0, 1, 2]]);
    const signed = assembleAndSign(
      { ...base, report: report({ pathway: 1, throughput: 10_000_000n }) },
      secret,
    );
    const read = unwrap(readDecision(signed.bytes));
    expect(digestOf(read)).toEqual(signed.digest);
    expect(read.priority).toEqual([0, 1, 2]);
    expect(read.pathways[1]!.joules).toBe(7_200n);
  });

  it('absent report values are 0 with their present bit clear; DASH is protocol 2', () => {
    const d = assembleDecision({ ...base, protocol: 'dash', report: report({ buffer: 1_000n }) });
    expect(d.protocol).toBe(2);
    expect(d.report).toEqual({ present: 4, pathway: 0, throughput: 0n, buffer: 1_000n });
    const all = assembleDecision({ ...base, report: report() });
    expect(all.report).toEqual({ present: 0, pathway: 0, throughput: 0n, buffer: 0n });
  });

  it('the draw depends on the session alone, not on the report or the evidence', () => {
    const other = selectEvidence(policy, windowAt(policy, t), new MemoryEvidenceStore());
    const d1 = assembleDecision({ ...base, report: report() });
    const d2 = assembleDecision({
      ...base,
      evidence: other,
      report: report({ pathway: 2, buffer: 1n }),
    });
    expect(d2.draw).toBe(d1.draw);
    const d3 = assembleDecision({ ...base, session: new Uint8Array(16), report: report() });
    expect(d3.draw).toBe(drawOf(policyDigest, new Uint8Array(16)));
  });

  it('refuses evidence of another window, or a room that is not the policy’s (RangeError)', () => {
    // The window [4P, 10P) is the window at t for t in [10P + L, 11P + L) exactly.
    const L = policy.lag_us;
    expect(() => assembleDecision({ ...base, t: 10n * P + L - 1n, report: report() })).toThrow(
      RangeError,
    );
    expect(assembleDecision({ ...base, t: 10n * P + L, report: report() }).t).toBe(10n * P + L);
    expect(assembleDecision({ ...base, t: 11n * P + L - 1n, report: report() }).t).toBe(
      11n * P + L - 1n,
    );
    expect(() => assembleDecision({ ...base, t: 11n * P + L, report: report() })).toThrow(
      RangeError,
    );
    expect(() => assembleDecision({ ...base, t: t + P, report: report() })).toThrow(RangeError);
    expect(() =>
      assembleDecision({ ...base, roomId: new Uint8Array(32), report: report() }),
    ).toThrow(RangeError);
  });

  it('REASON_NAME names the reasons as C8 does', () => {
    expect(Object.values(REASON_NAME)).toEqual([
      'buffer',
      'floor',
      'share',
      'hold',
      'rank',
      'none',
    ]);
    expect(REASON_NAME[R.hold]).toBe('hold');
  });
});

describe('assembleDecision: the window check at b = 0 (§5.1)', () => {
  it('evidence of the empty window serves every t below L + P', () => {
    const empty = selectEvidence(policy, windowAt(policy, 0n), new MemoryEvidenceStore());
    const at = (t: bigint) =>
      assembleDecision({
        signer,
        policy,
        policyDigest,
        t,
        session,
        protocol: 'dash',
        report: report(),
        evidence: empty,
        loads: [0, 0, 0],
      });
    expect(at(0n).reason).toBe(R.rank);
    expect(at(policy.lag_us + P - 1n).pathways.every((p) => p.status === STATUS.stale)).toBe(true);
    expect(() => at(policy.lag_us + P)).toThrow(RangeError);
  });
});
