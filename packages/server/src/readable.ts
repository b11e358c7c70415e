/**
 * Readable input of hand-written files (the server's config, the policy YAML of `wai-steer`):
 * durations with their unit, and the known name closest to a misspelt one. One home for both,
 * so that a duration reads the same in every file of an operator's (`@wai-steering/cli` imports
 * this module, `@wai-steering/server/readable`, which brings nothing of the server's store).
 *
 * Every conversion is exact, on bigints: a value that is not a whole number of the unit the
 * field stores is refused, never rounded.
 */

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

/**
 * The edit distance of `a` and `b`: Levenshtein's (insertions, deletions, substitutions), with a
 * swap of two neighbours counted as one edit (the optimal string alignment distance), so that
 * `prot` is one edit from `port`. The usual dynamic programme, a dozen lines: no dependency.
 */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        v = Math.min(v, d[i - 2]![j - 2]! + 1);
      }
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The known name `word` was most likely meant to be: the closest by {@link editDistance}
 * (case and `_`/`-` aside), when it is close (at most a third of its length, and 3); `undefined`
 * when none is.
 */
export function closestName(word: string, known: readonly string[]): string | undefined {
  const norm = (s: string): string => s.toLowerCase().replace(/[-_]/g, '');
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const name of known) {
    const d = norm(name) === norm(word) ? 0 : editDistance(word, name);
    if (d < bestDistance) {
      best = name;
      bestDistance = d;
    }
  }
  const limit = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  return bestDistance <= limit ? best : undefined;
}

/** ` (did you mean "x"?)` for a misspelt name, or nothing. */
export function didYouMean(word: string, known: readonly string[]): string {
  const near = closestName(word, known);
  return near === undefined ? '' : ` (did you mean "${near}"?)`;
}
