/**
 * Readable units of a hand-written policy that only the command line reads: bitrates (`2.5M`),
 * shares (`5%`, `50000ppm`), u64s. (Durations and instants are `@wai-steering/config-text`'s,
 * shared with the server and the hop agent.) Every conversion is exact, on bigints: a value that
 * is not a whole number of the unit the record stores is refused, never rounded.
 */

/** A decimal number as a fraction: `2.5` → 25 / 10. */
function decimal(text: string): { num: bigint; den: bigint } {
  const [whole, frac = ''] = text.split('.');
  return { num: BigInt(`${whole}${frac}`), den: 10n ** BigInt(frac.length) };
}

const RATE_MULTIPLIER: Readonly<Record<string, bigint>> = {
  '': 1n,
  k: 1_000n,
  K: 1_000n,
  M: 1_000_000n,
  G: 1_000_000_000n,
};

/** A bitrate in bits per second: `800k`, `2.5M`, `6M`, `1G`, `6000000` (or a number). */
export function parseBitrate(value: string | number): bigint | string {
  if (typeof value === 'number') {
    return Number.isSafeInteger(value) && value >= 0
      ? BigInt(value)
      : 'expected whole bits per second';
  }
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kKMG]?)\s*(?:bps|bit\/s|b\/s)?\s*$/.exec(value);
  if (m === null)
    return 'expected a bitrate in bits per second, such as "800k", "2.5M" or "6000000"';
  const { num, den } = decimal(m[1]!);
  const bits = num * RATE_MULTIPLIER[m[2]!]!;
  if (bits % den !== 0n) return `${value.trim()} is not a whole number of bits per second`;
  return bits / den;
}

/** A share in parts per million: `5%`, `0.25%`, `50000ppm`. */
export function parsePpm(value: string): bigint | string {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(%|ppm)\s*$/.exec(value);
  if (m === null) return 'expected a share with its unit, such as "5%" or "50000ppm"';
  const { num, den } = decimal(m[1]!);
  const ppm = m[2] === '%' ? num * 10_000n : num;
  if (ppm % den !== 0n) return `${value.trim()} is not a whole number of ppm`;
  return ppm / den;
}

/** A u64 given as a decimal string (or a safe integer); an error message otherwise. */
export function parseU64(value: string | number, bits = 64): bigint | string {
  let n: bigint;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) return 'expected a whole number of 0 or above';
    n = BigInt(value);
  } else {
    if (!/^\d+$/.test(value)) return 'expected a whole number in decimal digits';
    n = BigInt(value);
  }
  if (n >= 1n << BigInt(bits)) return `above 2^${bits} − 1`;
  return n;
}

/** Formats a bitrate readably: `800k`, `2.5M`. */
export function formatBitrate(bps: bigint): string {
  for (const [suffix, m] of [
    ['G', 1_000_000_000n],
    ['M', 1_000_000n],
    ['k', 1_000n],
  ] as const) {
    if (bps >= m) {
      const whole = bps / m;
      const rest = bps % m;
      if (rest === 0n) return `${whole}${suffix}`;
      const frac = rest
        .toString()
        .padStart(m.toString().length - 1, '0')
        .replace(/0+$/, '');
      return `${whole}.${frac}${suffix}`;
    }
  }
  return `${bps}`;
}

/** Formats ppm as a percentage: 50000 → `5%`. */
export function formatPpm(ppm: number): string {
  const whole = Math.floor(ppm / 10_000);
  const rest = ppm % 10_000;
  if (rest === 0) return `${whole}%`;
  return `${whole}.${rest.toString().padStart(4, '0').replace(/0+$/, '')}%`;
}
