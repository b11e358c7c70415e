/**
 * A pathway's figure J / D (§5.4) for people, one form wherever a person reads one (the console,
 * `verify`, `decision inspect`, `doctor`): J in µJ over D in the policy's basis, as joules per
 * gigabyte (basis 1, bytes) or per delivered hour (basis 2, µs at or above the floor tier). A
 * display number, never an input to anything: the evidence keeps its exact integers.
 */

/** A figure in readable units (display only). */
export interface ReadableFigure {
  /** The figure in `unit`, to the thousandth (cut off). */
  readonly value: number;
  readonly unit: 'J/GB' | 'J/h';
  /** `974.8 J/GB`: one decimal from 100, two from 10, else three; cut off, never rounded up. */
  readonly text: string;
}

/**
 * The figure J / D in readable units: basis 1 (µJ per byte) as J/GB (J × 10³ / D), basis 2 (µJ
 * per µs at the floor tier) as J/h (J × 3600 / D), to the thousandth by integer division. D must
 * be above 0 (a figure has D > 0, §5.4).
 */
export function readableFigure(basis: number, joules: bigint, delivery: bigint): ReadableFigure {
  if (typeof joules !== 'bigint' || typeof delivery !== 'bigint' || delivery <= 0n) {
    throw new TypeError('readableFigure: expected bigints, delivery above 0');
  }
  const scale = basis === 1 ? 1000n : 3600n;
  const milli = (joules * scale * 1000n) / delivery;
  const unit = basis === 1 ? 'J/GB' : 'J/h';
  // One decimal from 100, two from 10, else three; what they cannot hold is cut off.
  const decimals = milli >= 100_000n ? 1 : milli >= 10_000n ? 2 : 3;
  const kept = milli / 10n ** BigInt(3 - decimals);
  const one = 10n ** BigInt(decimals);
  const text = `${kept / one}.${String(kept % one).padStart(decimals, '0')} ${unit}`;
  return { value: Number(milli) / 1000, unit, text };
}

const BYTE_UNITS: readonly (readonly [string, bigint])[] = [
  ['TB', 10n ** 12n],
  ['GB', 10n ** 9n],
  ['MB', 10n ** 6n],
  ['kB', 10n ** 3n],
];

/**
 * A count of bytes for people, in decimal (SI) units with at most one decimal, cut off:
 * `512 bytes`, `1.5 kB`, `348.6 MB`, `2 GB`.
 */
export function formatBytes(bytes: bigint): string {
  if (typeof bytes !== 'bigint') throw new TypeError('formatBytes: expected a bigint');
  const sign = bytes < 0n ? '-' : '';
  const n = bytes < 0n ? -bytes : bytes;
  for (const [unit, size] of BYTE_UNITS) {
    if (n >= size) {
      const tenths = (n * 10n) / size;
      const text = tenths % 10n === 0n ? `${tenths / 10n}` : `${tenths / 10n}.${tenths % 10n}`;
      return `${sign}${text} ${unit}`;
    }
  }
  return `${sign}${n} ${n === 1n ? 'byte' : 'bytes'}`;
}
