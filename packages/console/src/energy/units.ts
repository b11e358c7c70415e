/**
 * The Energy page's units for people: energy in J, Wh, kWh or MWh (the unit chosen by the
 * magnitude, the sign always written: `−1.2 kWh`), energy per unit of delivery as people quote
 * it (J/GB and kWh/GB on the bytes basis, W per stream on the time basis) beside the account's
 * exact pJ per unit, and exact integers grouped by thousands. Display only: the exact figures
 * stay the account's decimal strings.
 */
import { groupDigits } from '../common/format.js';

/** A minus sign people read as one (U+2212), not a hyphen. */
const MINUS = '\u2212';
const WH_UJ = 3.6e9; // µJ in a watt-hour

/** `x` to `digits` significant figures, trailing zeros of the fraction kept to 3 figures. */
function sig(x: number): string {
  const a = Math.abs(x);
  const d = a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
  return a.toFixed(d);
}

const SUPERSCRIPT = '⁰¹²³⁴⁵⁶⁷⁸⁹';

/** `x` ≥ 0 to three significant figures, as a decimal down to 0.0001, below it as `2.06 × 10⁻⁵`. */
export function threeFigures(x: number): string {
  if (x === 0 || !Number.isFinite(x)) return String(x);
  if (x >= 1e-4) return Number(x.toPrecision(3)).toString();
  const [m, e] = x.toExponential(2).split('e');
  const exp = Number(e);
  const digits = [...String(Math.abs(exp))].map((d) => SUPERSCRIPT[Number(d)]).join('');
  return `${m} × 10${exp < 0 ? '⁻' : ''}${digits}`;
}

function signed(x: number, text: string): string {
  return x < 0 ? `${MINUS}${text}` : text;
}

/** The unit an energy of about `uj` µJ reads best in, and its size in µJ. */
export function energyUnit(uj: number): { unit: string; scale: number } {
  const a = Math.abs(uj);
  if (a >= 1e6 * WH_UJ) return { unit: 'MWh', scale: 1e6 * WH_UJ };
  if (a >= 1e3 * WH_UJ) return { unit: 'kWh', scale: 1e3 * WH_UJ };
  if (a >= 0.1 * WH_UJ) return { unit: 'Wh', scale: WH_UJ };
  if (a >= 1e3 * 1e6) return { unit: 'kJ', scale: 1e9 };
  return { unit: 'J', scale: 1e6 };
}

/** Microjoules (a number or a decimal string) in the unit they read best in, with the sign. */
export function energy(uj: number | string): string {
  const v = typeof uj === 'string' ? Number(uj) : uj;
  const { unit, scale } = energyUnit(v);
  return signed(v, `${sig(Math.abs(v) / scale)} ${unit}`);
}

/** Microjoules exactly: `1 859 173 770 µJ` (the account's figure). */
export function exactUj(uj: string): string {
  return `${groupDigits(uj).replace('-', MINUS)} µJ`;
}

/** An energy per unit of delivery (pJ per unit, a decimal string or number) as people quote it. */
export function perUnit(pj: number | string, basis: number): { main: string; also: string } {
  const v = typeof pj === 'string' ? Number(pj) : pj;
  if (basis === 1) {
    // pJ per byte × 10^9 bytes per GB × 10^-12 J per pJ.
    const jPerGb = v * 1e-3;
    return {
      main: signed(jPerGb, `${sig(Math.abs(jPerGb))} J/GB`),
      also: signed(jPerGb, `${threeFigures(Math.abs(jPerGb) / 3.6e6)} kWh/GB`),
    };
  }
  // pJ per µs of delivery = µW per stream.
  const w = v * 1e-6;
  return {
    main: signed(w, `${sig(Math.abs(w))} W a stream`),
    also: signed(w, `${sig(Math.abs(w))} Wh per hour delivered`),
  };
}

/** The account's exact figure of an energy per unit: `73 976 pJ/B`. */
export function exactPerUnit(pj: string, basis: number): string {
  return `${groupDigits(pj).replace('-', MINUS)} ${basis === 1 ? 'pJ/B' : 'pJ/µs'}`;
}

/** A delivery in its basis: bytes in SI units (`12.2 GB`), or hours of delivery. */
export function deliveryText(d: number | string, basis: number): string {
  const v = typeof d === 'string' ? Number(d) : d;
  if (basis === 1) {
    const units = ['B', 'kB', 'MB', 'GB', 'TB', 'PB', 'EB'];
    let x = v;
    let u = 0;
    while (Math.abs(x) >= 1000 && u < units.length - 1) {
      x /= 1000;
      u++;
    }
    return u === 0 ? `${x} B` : `${sig(x)} ${units[u]}`;
  }
  const h = v / 3.6e9;
  return h >= 1 ? `${sig(h)} h delivered` : `${sig(v / 6e7)} min delivered`;
}

/** The unit a delivery of about `d` reads best in on the plot's axis, and its size. */
export function deliveryUnit(d: number, basis: number): { unit: string; scale: number } {
  if (basis !== 1) return d >= 3.6e9 ? { unit: 'h', scale: 3.6e9 } : { unit: 'min', scale: 6e7 };
  const a = Math.abs(d);
  if (a >= 1e12) return { unit: 'TB', scale: 1e12 };
  if (a >= 1e9) return { unit: 'GB', scale: 1e9 };
  if (a >= 1e6) return { unit: 'MB', scale: 1e6 };
  if (a >= 1e3) return { unit: 'kB', scale: 1e3 };
  return { unit: 'B', scale: 1 };
}

/** A count with thousands grouped. */
export function count(decimal: string): string {
  return groupDigits(decimal);
}

/** Why a pathway's marginal view is not stated, in words. */
export function marginalWhy(why: string | null, periods: number): string | null {
  if (why === 'too_few_periods') {
    return periods === 0
      ? 'no marginal figure: no usable period (a hop unmetered, missing or crossing records)'
      : `no marginal figure: ${periods} usable period${periods === 1 ? '' : 's'}, 30 needed`;
  }
  if (why === 'no_variance')
    return 'no marginal figure: the same delivery every period, nothing to fit';
  return null;
}
