/**
 * Readable input of hand-written files (the server's config, the policy YAML of `wai-steer`):
 * durations with their unit, and the known name closest to a misspelt one. One home for both,
 * so that a duration reads the same in every file of an operator's (`@wai-steering/cli` imports
 * this module, `@wai-steering/server/readable`, which brings nothing of the server's store). The
 * name suggestions are written once in `@wai-steering/wire/internal`, which the hop agent's
 * config also reads; they are re-exported here.
 *
 * Every conversion is exact, on bigints: a value that is not a whole number of the unit the
 * field stores is refused, never rounded.
 */

export { closestName, didYouMean, editDistance } from '@wai-steering/wire/internal';

/** The unit a field stores: microseconds, milliseconds or seconds. */
export type DurationUnit = 'us' | 'ms' | 's';

const DURATION_US: Readonly<Record<string, bigint>> = {
  us: 1n,
  µs: 1n,
  ms: 1_000n,
  s: 1_000_000n,
  m: 60_000_000n,
  min: 60_000_000n,
  h: 3_600_000_000n,
  d: 86_400_000_000n,
  w: 604_800_000_000n,
};

const UNIT_NAME: Readonly<Record<DurationUnit, string>> = {
  us: 'microseconds',
  ms: 'milliseconds',
  s: 'seconds',
};

/** The units a duration is written with, for messages. */
export const DURATION_UNITS = 'us, ms, s, m (or min), h, d or w';

/** A decimal number as a fraction: `2.5` → 25 / 10. */
function decimal(text: string): { num: bigint; den: bigint } {
  const [whole, frac = ''] = text.split('.');
  return { num: BigInt(`${whole}${frac}`), den: 10n ** BigInt(frac.length) };
}

/**
 * A duration with its unit (`2s`, `500ms`, `1.5s`, `250us`, `5m`, `5min`, `1h`, `7d`, `2w`) as
 * a whole number of `unit`; the message of the rule it breaks when it does not read or is not a
 * whole number of `unit`.
 */
export function parseDuration(value: string, unit: DurationUnit): bigint | string {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(us|µs|ms|s|min|m|h|d|w)\s*$/.exec(value);
  if (m === null) {
    return `expected a duration with its unit (${DURATION_UNITS}), such as "2s" or "500ms"`;
  }
  const { num, den } = decimal(m[1]!);
  const us = num * DURATION_US[m[2]!]!;
  const per = DURATION_US[unit]!;
  if (us % (den * per) !== 0n) return `${value.trim()} is not a whole number of ${UNIT_NAME[unit]}`;
  return us / (den * per);
}
