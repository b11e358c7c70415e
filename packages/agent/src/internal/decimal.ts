/**
 * Exact decimal arithmetic for the values a source states as text: a Prometheus sample value
 * (Go's `strconv.FormatFloat(v, 'g', -1, 64)`: `1234.5`, `1.5e+06`), a config's watts. No
 * floating point: the text is read as the exact decimal it spells, and scaled to integer
 * microjoules by truncation toward zero, the remainder below a microjoule carried by the caller
 * comparing truncated cumulative values (so no sub-µJ digit is lost over a run of periods).
 */

/** A decimal value: `digits × 10^exp`, `digits` ≥ 0. */
export interface Decimal {
  readonly digits: bigint;
  readonly exp: number;
}

const DECIMAL = /^\+?(\d+)(?:\.(\d*))?(?:[eE]([+-]?\d{1,4}))?$|^\+?\.(\d+)(?:[eE]([+-]?\d{1,4}))?$/;

/**
 * Reads a non-negative decimal number as written (`12`, `12.5`, `1.5e+06`, `.5`); a string
 * that is not one (a negative value, `NaN`, `+Inf`, hexadecimal) gives a one-line reason.
 */
export function parseDecimal(text: string): Decimal | string {
  const t = text.trim();
  if (/^[+-]?(inf|infinity|nan)$/i.test(t)) return `${JSON.stringify(text)} is not a finite number`;
  if (t.startsWith('-')) {
    // -0 is zero; any other negative value is not an amount of energy or bytes.
    if (/^-0*(\.0*)?([eE][+-]?\d+)?$/.test(t)) return { digits: 0n, exp: 0 };
    return `${JSON.stringify(text)} is negative`;
  }
  const m = DECIMAL.exec(t);
  if (m === null) return `${JSON.stringify(text)} is not a decimal number`;
  const int = m[1] ?? '';
  const frac = m[2] ?? m[4] ?? '';
  const e = Number(m[3] ?? m[5] ?? '0');
  return { digits: BigInt(`${int}${frac}` || '0'), exp: e - frac.length };
}

/** ⌊value × 10^shift⌋ for a decimal ≥ 0: e.g. joules to microjoules with `shift` 6. */
export function floorScaled(d: Decimal, shift: number): bigint {
  const k = d.exp + shift;
  if (k >= 0) return d.digits * 10n ** BigInt(k);
  return d.digits / 10n ** BigInt(-k);
}

/** Whether ⌊value × 10^shift⌋ is the value × 10^shift exactly (no digit below the unit). */
export function isWhole(d: Decimal, shift: number): boolean {
  const k = d.exp + shift;
  return k >= 0 || d.digits % 10n ** BigInt(-k) === 0n;
}
