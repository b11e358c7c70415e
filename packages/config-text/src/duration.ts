/**
 * Durations as people write and read them. One parser for every hand-written file and option
 * (the server's config, the policy YAML, the hop agent's `hop.yaml`, `wai-steer`'s options), and
 * one form for human output.
 *
 * Every conversion is exact, on bigints: a value that is not a whole number of the unit a field
 * stores is refused, never rounded.
 */

/** The unit a field stores: microseconds, milliseconds or seconds. */
export type DurationUnit = 'us' | 'ms' | 's';

const US = 1n;
const MS = 1_000n;
const S = 1_000_000n;
const MIN = 60_000_000n;
const H = 3_600_000_000n;
const D = 86_400_000_000n;

const DURATION_US: Readonly<Record<string, bigint>> = {
  us: US,
  µs: US,
  ms: MS,
  s: S,
  m: MIN,
  min: MIN,
  h: H,
  d: D,
  w: 7n * D,
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
 * The message for a number without a unit, every duration's one rule (docs/cli.md,
 * *Durations*): refused, never read as seconds or milliseconds, with what to write instead
 * (`30` → `write "30s" (or "30ms")`).
 */
export function bareNumber(number: string): string {
  return `a duration needs its unit: write "${number}s" (or "${number}ms")`;
}

/**
 * A duration with its unit (`2s`, `500ms`, `1.5s`, `250us`, `250µs`, `5m`, `5min`, `1h`, `7d`,
 * `2w`; blanks around the number and the unit are allowed) as a whole number of `unit`; the
 * message of the rule it breaks when it does not read or is not a whole number of `unit`. A bare
 * number (`30`) is refused with what to write ({@link bareNumber}), in every file and option
 * alike. The range is the caller's to check.
 */
export function parseDuration(text: string, unit: DurationUnit): bigint | string {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(us|µs|ms|s|min|m|h|d|w)\s*$/.exec(text);
  if (m === null) {
    const bare = /^\s*(\d+(?:\.\d+)?)\s*$/.exec(text);
    if (bare !== null) return bareNumber(bare[1]!);
    return `expected a duration with its unit (${DURATION_UNITS}), such as "2s" or "500ms"`;
  }
  const { num, den } = decimal(m[1]!);
  const us = num * DURATION_US[m[2]!]!;
  const per = DURATION_US[unit]!;
  if (us % (den * per) !== 0n) return `${text.trim()} is not a whole number of ${UNIT_NAME[unit]}`;
  return us / (den * per);
}

/** `n / 10` with at most one decimal: `26` → `2.6`, `20` → `2`. */
function tenths(n: bigint): string {
  return n % 10n === 0n ? `${n / 10n}` : `${n / 10n}.${n % 10n}`;
}

/** The compound units, largest first. */
const COMPOUND: readonly (readonly [string, bigint])[] = [
  ['d', D],
  ['h', H],
  ['min', MIN],
  ['s', S],
];

/** The readable form of `us` and whether it states it exactly (nothing truncated). */
function readable(us: bigint): { text: string; exact: boolean } {
  if (us < MS) return { text: `${us} µs`, exact: true };
  if (us < MIN) {
    const unit = us < S ? MS : S;
    const n = (us * 10n) / unit;
    return { text: `${tenths(n)} ${unit === MS ? 'ms' : 's'}`, exact: (n * unit) / 10n === us };
  }
  let i = 0;
  while (us < COMPOUND[i]![1]) i++;
  const [big, bigUs] = COMPOUND[i]!;
  const [small, smallUs] = COMPOUND[i + 1]!;
  const whole = us / bigUs;
  const part = (us % bigUs) / smallUs;
  return {
    text: part === 0n ? `${whole} ${big}` : `${whole} ${big} ${part} ${small}`,
    exact: whole * bigUs + part * smallUs === us,
  };
}

function checked(us: bigint, what: string): bigint {
  if (typeof us !== 'bigint') throw new TypeError(`${what}: expected a bigint of µs`);
  return us;
}

/**
 * A duration of `us` microseconds for people, by one rule: below a millisecond in whole µs
 * (`250 µs`); below a minute in milliseconds or seconds with at most one decimal (`250 ms`,
 * `2.5 ms`, `2.6 s`, `59.9 s`); from a minute on, in the two largest of d, h, min and s it
 * holds, each whole, the second left out when it is 0 (`1 min`, `1 min 30 s`, `1 h 30 min`,
 * `2 d 3 h`). What the form cannot hold is cut off, never rounded up (`59.99 s` is `59.9 s`, not
 * `60 s`); a negative duration has a leading `-`. Where the exact value matters, use
 * {@link formatDurationExact}.
 */
export function formatDuration(us: bigint): string {
  checked(us, 'formatDuration');
  return us < 0n ? `-${readable(-us).text}` : readable(us).text;
}

/**
 * {@link formatDuration}, and the microseconds beside it in parentheses when the readable form
 * cuts some off: `2 s`, `1 min 30 s`, `2.6 s (2614000 µs)`.
 */
export function formatDurationExact(us: bigint): string {
  checked(us, 'formatDurationExact');
  const r = readable(us < 0n ? -us : us);
  const text = us < 0n ? `-${r.text}` : r.text;
  return r.exact ? text : `${text} (${us} µs)`;
}
