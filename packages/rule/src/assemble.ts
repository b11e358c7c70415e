/**
 * §7.1: a steering decision's fields, assembled from the policy, the evidence, the report, the
 * session and the loads, ready for wire's `signDecision`.
 */
import type { Evidence } from '@wai-steering/evidence';
import {
  bytesEqual,
  type CryptoBackend,
  type DecisionFields,
  type DecisionPathway,
  getBackend,
  type PolicyFields,
  PRESENT,
  PROTOCOL,
  type SignOptions,
  signDecision,
} from '@wai-steering/wire';
import { drawOf } from './draw.js';
import { applyRule } from './first.js';
import { orderPathways } from './order.js';
import type { Protocol, Report } from './report.js';

/** The inputs of one decision. */
export interface AssembleInput {
  /** §7.1 `room`: the room id; the policy's `room` when absent (they must be equal). */
  readonly roomId?: Uint8Array;
  /** §7.1 `signer`: the key that will sign the decision (§3.5). */
  readonly signer: Uint8Array;
  readonly policy: PolicyFields;
  /** §3.4: the policy's digest. */
  readonly policyDigest: Uint8Array;
  /** §7.1 `t`: the decision's instant on the room clock, µs. */
  readonly t: bigint;
  /** §6: the client's 16-byte session. */
  readonly session: Uint8Array;
  /** §7.1 `protocol`: which parameters the report was read from. */
  readonly protocol: Protocol;
  /** §4: the report as read. */
  readonly report: Report;
  /** §5: the evidence over the window of `t` (an `EvidenceCache` gives it). */
  readonly evidence: Evidence;
  /** §6: each pathway's load, in the policy's order (u32). */
  readonly loads: readonly number[];
  /** The backend of the draw's SHA-256; the default backend when absent. */
  readonly backend?: CryptoBackend;
}

/** What a decision reuses of one evidence object: its order (§6.2) and its digest lists. */
interface Prepared {
  readonly policy: PolicyFields;
  /** The instants t whose window (§5.1) is the evidence's: [from, until); empty when none. */
  readonly from: bigint;
  readonly until: bigint;
  readonly order: readonly number[];
  readonly evidence: readonly (readonly Uint8Array[])[];
}

/**
 * Per evidence object: the order and the digest lists, computed once. Evidence objects are
 * immutable (an `EvidenceCache` returns the same one while the window holds), so a decision
 * costs no sort and no copy of the digests while the window holds.
 */
const prepared = new WeakMap<Evidence, Prepared>();

/**
 * §5.1: the instants t whose window is the evidence's. b = ⌊(t − L) / P⌋ × P holds for t in
 * [L + b, L + b + P) (and b = 0 for every t below L + P); a = max(0, b − W) then follows from b.
 */
function spanOf(policy: PolicyFields, evidence: Evidence): { from: bigint; until: bigint } {
  const { a, b } = evidence.window;
  const P = policy.period_us;
  const L = policy.lag_us;
  const W = policy.window_us;
  const none = { from: 0n, until: 0n };
  if (P <= 0n || b % P !== 0n || a !== (b < W ? 0n : b - W)) return none;
  if (b === 0n) return { from: 0n, until: L + P };
  return { from: L + b, until: L + b + P };
}

function prepare(policy: PolicyFields, evidence: Evidence): Prepared {
  const hit = prepared.get(evidence);
  if (hit !== undefined && hit.policy === policy) return hit;
  if (evidence.pathways.length !== policy.pathways.length) {
    throw new TypeError('assembleDecision: the evidence is not of this policy');
  }
  const { from, until } = spanOf(policy, evidence);
  const value: Prepared = {
    policy,
    from,
    until,
    order: orderPathways(policy, evidence.pathways),
    evidence: evidence.pathways.map((p) => p.named.map((n) => n.digest)),
  };
  prepared.set(evidence, value);
  return value;
}

/**
 * §7.1: the decision's fields: the draw (§6.3), the report with its `present` bits (bit 0 c,
 * bit 1 T, bit 2 B; an absent value 0), each pathway in the policy's order with its load, limits
 * bits (§6.1), status, class, J, D (§5.3, §5.4) and the digests of its named records (§5.2), and
 * the TTL, reason and priority of the rule (§6.4, §6.5).
 */
export function assembleDecision(input: AssembleInput): DecisionFields {
  const { policy, policyDigest, t, session, report, evidence, loads } = input;
  const room = input.roomId ?? policy.room;
  if (!bytesEqual(room, policy.room)) {
    throw new RangeError("assembleDecision: the room id is not the policy's room");
  }
  const prepared = prepare(policy, evidence);
  // §9.1 step 4.5: every named record must be in the window of `t` (§5.1): the evidence's
  // window must be the window at t, which holds exactly for t in [from, until).
  if (!(t >= prepared.from && t < prepared.until)) {
    throw new RangeError('assembleDecision: the evidence is not of the window at t (§5.1)');
  }
  const { order, evidence: digests } = prepared;
  const draw = drawOf(policyDigest, session, input.backend ?? getBackend());
  const rule = applyRule({ policy, figures: evidence.pathways, report, draw, loads, order });
  const pathways: DecisionPathway[] = new Array(policy.pathways.length);
  for (let i = 0; i < pathways.length; i++) {
    const p = evidence.pathways[i]!;
    pathways[i] = {
      load: loads[i]!,
      limits: rule.limits[i]!,
      status: p.status,
      class: p.class,
      joules: p.joules,
      delivery: p.delivery,
      evidence: digests[i]!,
    };
  }
  let present = 0;
  if (report.pathway !== null) present |= PRESENT.pathway;
  if (report.throughput !== null) present |= PRESENT.throughput;
  if (report.buffer !== null) present |= PRESENT.buffer;
  return {
    room,
    signer: input.signer,
    policy: policyDigest,
    t,
    session,
    draw,
    protocol: PROTOCOL[input.protocol],
    report: {
      present,
      pathway: report.pathway ?? 0,
      throughput: report.throughput ?? 0n,
      buffer: report.buffer ?? 0n,
    },
    pathways,
    ttl: rule.ttl,
    reason: rule.reason,
    priority: rule.priority,
  };
}

/** A signed decision: its fields, its bytes and its digest (§7.3, the manifest's `<decision>`). */
export interface SignedDecision {
  readonly fields: DecisionFields;
  readonly bytes: Uint8Array;
  readonly digest: Uint8Array;
}

/**
 * §7.1, §7.3: assembles the decision and signs it with `secretKey` (whose public key must be
 * `signer`), its rules checked first unless `options.check` is false.
 */
export function assembleAndSign(
  input: AssembleInput,
  secretKey: Uint8Array,
  options: Pick<SignOptions, 'check'> = {},
): SignedDecision {
  const backend = input.backend ?? getBackend();
  const fields = assembleDecision(input);
  const bytes = signDecision(fields, secretKey, {
    backend,
    ...(options.check === undefined ? {} : { check: options.check }),
  });
  // §7.3: the digest is SHA-256 over the bytes before `sig`.
  const digest = backend.sha256(bytes.subarray(0, bytes.length - 64));
  return { fields, bytes, digest };
}
