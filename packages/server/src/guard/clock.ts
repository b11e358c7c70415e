/**
 * The clock at start, against the store: never delete by a clock that cannot be trusted. The
 * store's newest decision (and record) says when the server last ran; a clock before it, or far
 * after it, is more likely wrong than the store (a clock 8 days ahead with a retention of 7 days
 * would make the first pruning pass delete what the server served). The server then refuses to
 * start, naming both instants and the override (`time.trust: true`, or
 * `wai-steer serve --trust-clock`).
 *
 * While running, the room clock is the process's monotonic clock, calibrated once against the
 * wall clock at start (`monotonicClock`): a step of the wall clock (NTP, an operator) does not
 * move it. The server reads the wall clock again at its next start, where this check runs.
 */
import { formatDuration, formatInstant } from '@wai-steering/config-text';
import { ConfigError } from '../config/errors.js';

/** Options of {@link checkClock}, ms. */
export interface ClockCheckOptions {
  /** How far before the newest stored decision the clock may be. */
  readonly tolerance: number;
  /** How far after the newest stored decision or record the clock may be. */
  readonly maxGap: number;
  /** Skip the check. */
  readonly trust: boolean;
}

/**
 * Throws a {@link ConfigError} when the clock `now` (µs) is before the newest stored decision by
 * more than `tolerance`, or after the newest stored decision or record by more than `maxGap`.
 */
export function checkClock(
  now: bigint,
  newest: { readonly decision?: bigint | undefined; readonly record?: bigint | undefined },
  o: ClockCheckOptions,
): void {
  if (o.trust) return;
  const override = 'if the clock is right, set time.trust: true or start with --trust-clock';
  const d = newest.decision;
  if (d !== undefined && now + BigInt(o.tolerance) * 1000n < d) {
    throw new ConfigError([
      `time: the clock (${formatInstant(now)}) is ${formatDuration(d - now)} before the newest decision in the store (${formatInstant(d)}): it is wrong, or the store is another server's; ${override}`,
    ]);
  }
  const latest =
    d === undefined
      ? newest.record
      : newest.record === undefined || d > newest.record
        ? d
        : newest.record;
  if (latest !== undefined && now > latest + BigInt(o.maxGap) * 1000n) {
    throw new ConfigError([
      `time: the clock (${formatInstant(now)}) is ${formatDuration(now - latest)} after the newest decision or record in the store (${formatInstant(latest)}), more than time.max_gap: pruning by it would delete what the store holds; ${override}`,
    ]);
  }
}
