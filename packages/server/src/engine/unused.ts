/**
 * Whether a record the server takes will ever be named by a decision, and why not: a record
 * kept for the archive (every record taken is stored and served by digest) but that no window
 * the server will use names is answered with `used: false` and the reason, so that a hop's
 * operator sees it at once rather than as a stale pathway later:
 *
 * - its hop is on no pathway of the policy in force (§5.2 names only a pathway's hops);
 * - its span is not cut on the policy's period P (§5.1: hops cut their records from one multiple
 *   of P to another; the window's bounds are multiples of P, so such a record never tiles it
 *   with the hop's other records);
 * - it starts before the window in use at the room clock now (§5.1: windows only move forward,
 *   so no later window holds it: it arrived after its lag L, or was signed for the past).
 */
import { formatDuration, formatInstant } from '@wai-steering/config-text';
import { windowAt } from '@wai-steering/evidence';
import { bytesEqual, type Policy } from '@wai-steering/wire';

/** A record's hop and span. */
export interface SpanOfHop {
  readonly hop: Uint8Array;
  readonly start: bigint;
  readonly end: bigint;
}

/** Why no window the server will use at `now` or after names `record`; `undefined` if one may. */
export function unusedReason(policy: Policy, record: SpanOfHop, now: bigint): string | undefined {
  const onPathway = policy.pathways.some((p) => p.hops.some((h) => bytesEqual(h.key, record.hop)));
  if (!onPathway) return 'its hop is on no pathway of the policy in force';
  const P = policy.period_us;
  if (record.start % P !== 0n || record.end % P !== 0n) {
    return `its span (${formatInstant(record.start)} to ${formatInstant(record.end)}) is not cut on the policy's period P (${formatDuration(P)}): a window starts and ends on multiples of P, so no window is tiled with it`;
  }
  const { a } = windowAt(policy, now);
  if (record.start < a) {
    return `it starts ${formatDuration(a - record.start)} before the window in use (from ${formatInstant(a)}): windows only move forward, so none will name it (a record reaches the server within L, ${formatDuration(policy.lag_us)}, of its period's end)`;
  }
  return undefined;
}
