/**
 * Readable forms of the spec's quantities for the pages: abbreviated keys, µs spans as clock
 * times and durations, big integers with thousands separators, byte and time units. Display only:
 * every exact value stays a decimal string or a bigint.
 */

/** The first and last characters of a long hex string: `ab12cd…9f0e`. */
export function abbrev(hex: string, head = 8, tail = 4): string {
  return hex.length <= head + tail + 1 ? hex : `${hex.slice(0, head)}…${hex.slice(-tail)}`;
}

/** A decimal integer string with thin-space thousands separators. */
export function groupDigits(decimal: string): string {
  const neg = decimal.startsWith('-');
  const digits = neg ? decimal.slice(1) : decimal;
  const out = digits.replace(/\B(?=(\d{3})+(?!\d))/g, '\u202f');
  return neg ? `-${out}` : out;
}

/** A room-clock instant (µs since the epoch, decimal) as a UTC clock time `HH:MM:SS.mmm`. */
export function clockTime(us: string | bigint): string {
  const ms = Number(BigInt(us) / 1000n);
  return new Date(ms).toISOString().slice(11, 23);
}

/** A span of µs as seconds with up to 3 decimals (`1.5 s`, `250 ms` below a second). */
export function duration(us: string | bigint): string {
  const v = BigInt(us);
  const neg = v < 0n;
  const a = neg ? -v : v;
  const text =
    a < 1_000_000n
      ? `${Number(a / 1000n)} ms`
      : `${(Number(a / 1000n) / 1000).toFixed(a % 1_000_000n === 0n ? 0 : a < 10_000_000n ? 2 : 1)} s`;
  return neg ? `−${text}` : text;
}

const BYTE_UNITS = ['B', 'kB', 'MB', 'GB', 'TB', 'PB', 'EB'];

/** A byte count (decimal string) in SI units: `1.23 GB`. */
export function bytes(decimal: string): string {
  let v = Number(decimal);
  let u = 0;
  while (v >= 1000 && u < BYTE_UNITS.length - 1) {
    v /= 1000;
    u++;
  }
  return u === 0 ? `${v} B` : `${v.toFixed(v >= 100 ? 0 : v >= 10 ? 1 : 2)} ${BYTE_UNITS[u]}`;
}

/** Microjoules (decimal string) in joules or kilojoules. */
export function joules(microjoules: string): string {
  const j = Number(microjoules) / 1e6;
  if (j >= 1e6) return `${(j / 1e6).toFixed(2)} MJ`;
  if (j >= 1e3) return `${(j / 1e3).toFixed(2)} kJ`;
  return `${j.toFixed(j >= 100 ? 1 : 3)} J`;
}

/** A delivery D on the policy's basis: bytes, or µs of delivery at the floor tier or above. */
export function delivery(decimal: string, basis: number): string {
  if (basis === 1) return bytes(decimal);
  const s = Number(decimal) / 1e6;
  return s >= 3600 ? `${(s / 3600).toFixed(2)} h delivered` : `${s.toFixed(1)} s delivered`;
}

/** Parts per million as a percentage. */
export function percent(ppm: number): string {
  const p = ppm / 10_000;
  return `${p.toFixed(p !== 0 && p < 10 ? 1 : 0)} %`;
}

/**
 * An age in seconds, as how long ago: `just now` under a second, `42 s ago`, `3 min 5 s ago`,
 * `2 h 10 min ago`, `3 d 4 h ago`; `never` for `null` (nothing received yet).
 */
export function ago(seconds: number | null): string {
  if (seconds === null) return 'never';
  const s = Number.isFinite(seconds) && seconds > 0 ? Math.floor(seconds) : 0;
  if (s < 1) return 'just now';
  if (s < 60) return `${s} s ago`;
  const pair = (big: number, bigUnit: string, small: number, smallUnit: string): string =>
    small === 0 ? `${big} ${bigUnit} ago` : `${big} ${bigUnit} ${small} ${smallUnit} ago`;
  if (s < 3600) return pair(Math.floor(s / 60), 'min', s % 60, 's');
  if (s < 86_400) return pair(Math.floor(s / 3600), 'h', Math.floor((s % 3600) / 60), 'min');
  return pair(Math.floor(s / 86_400), 'd', Math.floor((s % 86_400) / 3600), 'h');
}
