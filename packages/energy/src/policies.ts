/**
 * The policy in force over a span (docs/energy.md, *The method*), given as the policies and the instants
 * they took effect: a server from its store's order of policies (each claim's `at`), an auditor
 * from an archive's decisions (`policyTimeline`: a change of policy is a decision naming another
 * policy than the decision before it, the rule of the load replay).
 */
import { bytesEqual, digestOf, type Policy, type PolicyFields, toHex } from '@wai-steering/wire';
import { EnergySpanError } from './errors.js';

/** A policy and the instant (room clock µs) from which it is in force. */
export interface PolicyInForce {
  /** When it took effect, room clock µs. */
  readonly at: bigint;
  /** The policy as read (`readPolicy`): its digest is taken from its bytes. */
  readonly policy: Policy;
}

/** The policy an account is of, with what the account needs of the others. */
export interface SpanPolicy {
  /** The policy in force at `to` (its P, basis, `initial`, pathways and their order). */
  readonly policy: Policy;
  /** The pathway IDs of every policy given, by its digest in hex (for the load replay). */
  readonly idsByDigest: ReadonlyMap<string, readonly string[]>;
}

/** The index of the policy in force at `t`: the last with `at` ≤ t, the first before any. */
function indexAt(policies: readonly PolicyInForce[], t: bigint): number {
  let i = 0;
  for (let j = 1; j < policies.length; j++) if (policies[j]!.at <= t) i = j;
  return i;
}

function sameHops(x: PolicyFields['pathways'][number], y: PolicyFields['pathways'][number]) {
  if (x.hops.length !== y.hops.length) return false;
  for (let h = 0; h < x.hops.length; h++) {
    const a = x.hops[h]!;
    const b = y.hops[h]!;
    if (a.place !== b.place || !bytesEqual(a.key, b.key)) return false;
  }
  return true;
}

/**
 * What changes between two policies that the account cannot span (item 1a): `period_us`,
 * `basis`, `initial` (the initial pathway's ID), and each pathway's hops, pathways compared by
 * ID (`pathways.<id>.hops`; `pathways.<id>` for one that only one of them has). A live rotation
 * changes none of these.
 */
export function accountChanges(before: PolicyFields, after: PolicyFields): string[] {
  const out: string[] = [];
  if (before.period_us !== after.period_us) out.push('period_us');
  if (before.basis !== after.basis) out.push('basis');
  if (before.pathways[before.initial]?.id !== after.pathways[after.initial]?.id) {
    out.push('initial');
  }
  const other = new Map(after.pathways.map((p) => [p.id, p]));
  for (const p of before.pathways) {
    const q = other.get(p.id);
    if (q === undefined) out.push(`pathways.${p.id}`);
    else if (!sameHops(p, q)) out.push(`pathways.${p.id}.hops`);
  }
  const mine = new Set(before.pathways.map((p) => p.id));
  for (const q of after.pathways) if (!mine.has(q.id)) out.push(`pathways.${q.id}`);
  return out;
}

/**
 * Checks the span `[from, to)` against the policies in force (item 1a) and returns the policy in
 * force at `to`. Refused ({@link EnergySpanError}): an empty span; bounds that are not multiples
 * of that policy's P; a policy in force at an instant of `[from, to]` that differs from the one
 * before it in P, basis, `initial` or a pathway's hops (the first such instant is named).
 *
 * `policies` are in ascending `at` (equal instants: the later entry wins); the first is taken as
 * in force before its `at` too (an archive knows no policy before its first decision). Caller
 * misuse (no policy, a descending `at`, policies of two rooms, bounds that are not `bigint`) is
 * a `TypeError`.
 */
export function spanPolicy(
  policies: readonly PolicyInForce[],
  from: bigint,
  to: bigint,
): SpanPolicy {
  if (typeof from !== 'bigint' || typeof to !== 'bigint' || from < 0n) {
    throw new TypeError('energy: from and to are bigint µs of the room clock (u64)');
  }
  if (!Array.isArray(policies as unknown) || policies.length === 0) {
    throw new TypeError('energy: give at least one policy in force ({ at, policy })');
  }
  const idsByDigest = new Map<string, readonly string[]>();
  for (let i = 0; i < policies.length; i++) {
    const e = policies[i]!;
    const given = e as { at?: unknown; policy?: unknown } | undefined;
    if (
      typeof given?.at !== 'bigint' ||
      typeof given.policy !== 'object' ||
      given.policy === null
    ) {
      throw new TypeError(`energy: policies[${i}] is not { at: bigint, policy: Policy }`);
    }
    if (i > 0 && e.at < policies[i - 1]!.at) {
      throw new TypeError(`energy: policies[${i}] takes effect before the policy before it`);
    }
    if (!bytesEqual(e.policy.room, policies[0]!.policy.room)) {
      throw new TypeError(`energy: policies[${i}] is of another room`);
    }
    idsByDigest.set(
      toHex(digestOf(e.policy)),
      e.policy.pathways.map((p) => p.id),
    );
  }
  if (from >= to) {
    throw new EnergySpanError(
      'empty',
      `the span is empty: from (${from} µs) must be before to (${to} µs)`,
    );
  }
  const last = indexAt(policies, to);
  const policy = policies[last]!.policy;
  const P = policy.period_us;
  for (const [name, at] of [
    ['from', from],
    ['to', to],
  ] as const) {
    if (at % P !== 0n) {
      const below = at - (at % P);
      throw new EnergySpanError(
        'not_aligned',
        `${name} (${at} µs) is not a multiple of the policy's period of ${P} µs: a span is whole periods, such as ${name} ${below} or ${below + P}`,
        at,
      );
    }
  }
  for (let i = indexAt(policies, from) + 1; i <= last; i++) {
    const changes = accountChanges(policies[i - 1]!.policy, policies[i]!.policy);
    if (changes.length > 0) {
      const at = policies[i]!.at;
      throw new EnergySpanError(
        'policy_changes',
        `the policy in force changes ${changes.join(', ')} at ${at} µs, inside the span: account for [${from}, ${at}) and [${at}, ${to}) apart`,
        at,
        changes,
      );
    }
  }
  return { policy, idsByDigest };
}

/**
 * The policies in force as an archive shows them (docs/energy.md, *The method*, "as the auditor knows
 * them"): from decisions in ascending `t`, a new entry at each decision that names another policy
 * than the decision before it (the load replay's change of policy), at that decision's `t`. A
 * decision naming a policy that `policies` lacks leaves the one before in force.
 */
export function policyTimeline(
  decisions: Iterable<{ readonly t: bigint; readonly policy: Uint8Array }>,
  policies: Iterable<Policy>,
): PolicyInForce[] {
  const byDigest = new Map<string, Policy>();
  for (const p of policies) byDigest.set(toHex(digestOf(p)), p);
  const out: PolicyInForce[] = [];
  let last: Uint8Array | undefined;
  for (const d of decisions) {
    if (last !== undefined && bytesEqual(last, d.policy)) continue;
    last = d.policy;
    const policy = byDigest.get(toHex(d.policy));
    if (policy !== undefined && out[out.length - 1]?.policy !== policy) {
      out.push({ at: d.t, policy });
    }
  }
  return out;
}
