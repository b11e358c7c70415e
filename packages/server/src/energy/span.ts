/**
 * The span of an energy request: `from` and `to` as the query gives them (each an instant of
 * the room clock as `parseInstant` of `@wai-steering/config-text` reads it: decimal µs, an RFC
 * 3339 time, `now`, `now-1h`; `now` being the server's room clock), and the default of those
 * omitted (`docs/server.md`, *The energy account*): the last whole 24 hours of periods that
 * ended at least the lag L ago, started after the last change of policy the account cannot span.
 */
import { parseInstant } from '@wai-steering/config-text';
import { accountChanges, type PolicyInForce } from '@wai-steering/energy';

/** A day, µs: the default span's length. */
export const DAY_US = 86_400_000_000n;

/** The query's instants (`undefined`: omitted), and the series' sizes when asked for. */
export interface EnergyQuery {
  readonly from: bigint | undefined;
  readonly to: bigint | undefined;
  readonly buckets: number | undefined;
  readonly samples: number | undefined;
}

/** Reads a query string (the target's bytes after `?`), the first value of each name. */
export function readEnergyQuery(
  query: string,
  now: () => bigint,
  limits: { readonly buckets: number; readonly samples: number },
): EnergyQuery | { readonly error: string } {
  const params = new Map<string, string>();
  for (const part of query === '' ? [] : query.split('&')) {
    const eq = part.indexOf('=');
    const name = eq < 0 ? part : part.slice(0, eq);
    if (!params.has(name)) params.set(name, eq < 0 ? '' : part.slice(eq + 1));
  }
  const fixed = now();
  const instant = (name: string): bigint | undefined | { error: string } => {
    const raw = params.get(name);
    if (raw === undefined || raw === '') return undefined;
    let text: string;
    try {
      text = decodeURIComponent(raw);
    } catch {
      return { error: `${name} is not percent-encoded text` };
    }
    const at = parseInstant(text, () => fixed);
    return typeof at === 'string' ? { error: `${name}: ${at}` } : at;
  };
  const count = (name: string, max: number): number | undefined | { error: string } => {
    const raw = params.get(name);
    if (raw === undefined || raw === '') return undefined;
    const n = Number(raw);
    if (!/^[0-9]{1,6}$/.test(raw) || n < 1 || n > max)
      return { error: `${name} is not 1 to ${max}` };
    return n;
  };
  const from = instant('from');
  if (typeof from === 'object') return from;
  const to = instant('to');
  if (typeof to === 'object') return to;
  const buckets = count('buckets', limits.buckets);
  if (typeof buckets === 'object') return buckets;
  const samples = count('samples', limits.samples);
  if (typeof samples === 'object') return samples;
  return { from, to, buckets, samples };
}

/** The policy in force at `t`: the last with `at` ≤ t, the first before any (`spanPolicy`'s rule). */
function policyAt(policies: readonly PolicyInForce[], t: bigint): PolicyInForce {
  let found = policies[0]!;
  for (const p of policies) if (p.at <= t) found = p;
  return found;
}

/**
 * The span of a request whose `from` or `to` is omitted. `to` defaults to the end of the last
 * period that ended at least the lag L ago (records of later periods may still come), P and L
 * those of the policy in force now; `from` to 24 hours of whole periods before `to` (one period
 * at least), moved after the last instant in between at which the policy in force changes
 * what an account cannot span (P, basis, `initial`, a pathway's hops), rounded up to a period.
 * Given bounds are kept as given (a span refused is then said by the account).
 */
export function defaultSpan(
  policies: readonly PolicyInForce[],
  now: bigint,
  given: { readonly from: bigint | undefined; readonly to: bigint | undefined },
): { from: bigint; to: bigint } {
  let to = given.to;
  if (to === undefined) {
    const current = policyAt(policies, now).policy;
    const P = current.period_us;
    const settled = now - current.lag_us;
    to = settled <= 0n ? 0n : settled - (settled % P);
  }
  if (given.from !== undefined) return { from: given.from, to };
  const P = policyAt(policies, to).policy.period_us;
  const day = (DAY_US / P) * P;
  let from = to - (day > P ? day : P);
  if (from < 0n) from = 0n;
  // After the last change inside (from, to] that the account cannot span.
  for (let i = 1; i < policies.length; i++) {
    const at = policies[i]!.at;
    if (at <= from || at > to) continue;
    if (accountChanges(policies[i - 1]!.policy, policies[i]!.policy).length > 0) {
      const up = at % P === 0n ? at : at - (at % P) + P;
      from = up < to ? up : to;
    }
  }
  return { from, to };
}
