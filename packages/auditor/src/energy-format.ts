/**
 * The energy account for people (`wai-steer energy`, the audit's summary and HTML report):
 * energy in Wh and kWh, delivery in GB or hours, the figures per unit in Wh per GB (basis 1) or
 * Wh per hour delivered (basis 2), the idle power in W, each saving with its sign. The exact
 * figures are the account's JSON; these are rounded to four significant digits.
 */

import { formatDuration, formatInstant } from '@wai-steering/config-text';
import type { EnergyAccountJson, PathwayAccountJson } from '@wai-steering/energy';

/** µJ in one Wh. */
const UJ_PER_WH = 3.6e9;

/** Four significant digits, no exponent, no trailing zeros after the point. */
function sig(x: number): string {
  if (x === 0) return '0';
  const digits = Math.max(0, 3 - Math.floor(Math.log10(Math.abs(x))));
  const s = x.toFixed(Math.min(digits, 20));
  return s.includes('.') ? s.replace(/\.?0+$/, '') : s;
}

/** `x` scaled to the largest unit of `units` (ascending factors) it reaches. */
function scaled(x: number, units: readonly (readonly [number, string])[]): string {
  let unit = units[0]!;
  for (const u of units) if (Math.abs(x) >= u[0]) unit = u;
  return `${sig(x / unit[0])} ${unit[1]}`;
}

const ENERGY_UNITS = [
  [1 / 3600, 'J'],
  [1e-3, 'mWh'],
  [1, 'Wh'],
  [1e3, 'kWh'],
  [1e6, 'MWh'],
  [1e9, 'GWh'],
] as const;

/** µJ (a decimal string) as energy in Wh and its multiples: `1.251 Wh`, `3.2 kWh`. */
export function energyText(uj: string): string {
  return scaled(Number(uj) / UJ_PER_WH, ENERGY_UNITS);
}

/** A saving in µJ with its sign: `+1.251 Wh`, `-12 mWh`, `0 Wh`. */
export function savingText(uj: string): string {
  const n = Number(uj);
  const text = energyText(uj);
  return n > 0 ? `+${text}` : text;
}

/** Delivery in the basis' unit: bytes as GB (decimal), µs of subscriber time as hours. */
export function deliveryText(delivery: string, basis: number): string {
  const n = Number(delivery);
  if (basis === 2) {
    return scaled(n / 1e6, [
      [1, 's'],
      [60, 'min'],
      [3600, 'h'],
    ]);
  }
  return scaled(n, [
    [1, 'B'],
    [1e3, 'kB'],
    [1e6, 'MB'],
    [1e9, 'GB'],
    [1e12, 'TB'],
  ]);
}

/** The unit a figure per unit of delivery is shown in. */
export function perUnitName(basis: number): string {
  return basis === 2 ? 'Wh/h' : 'Wh/GB';
}

/** pJ per unit as Wh per GB (basis 1) or Wh per hour delivered (basis 2). */
function perUnitValue(pj: number, basis: number): number {
  // basis 1: pJ/B × 10^9 B/GB × 10^-12 J/pJ / 3600 J/Wh; basis 2: pJ/µs × 3.6 × 10^9 µs/h.
  return basis === 2 ? (pj * 3.6e9 * 1e-12) / 3600 : (pj * 1e-3) / 3600;
}

/** A figure per unit (pJ, a decimal string or a float) in Wh/GB or Wh/h. */
export function perUnitText(pj: string | number, basis: number): string {
  return `${sig(perUnitValue(Number(pj), basis))} ${perUnitName(basis)}`;
}

/** The marginal figure and its interval: `0.02055 Wh/GB [0.02042, 0.02067]`. */
function marginalText(p: PathwayAccountJson, basis: number): string {
  if (p.marginal_pj_per_unit === null) return '—';
  const ci = p.marginal_ci95_pj_per_unit;
  const band =
    ci === null ? '' : ` [${sig(perUnitValue(ci[0], basis))}, ${sig(perUnitValue(ci[1], basis))}]`;
  return `${perUnitText(p.marginal_pj_per_unit, basis)}${band}`;
}

/** The idle energy of a period as power: µJ per period of P µs is W. */
function idleText(p: PathwayAccountJson, periodUs: string): string {
  return p.idle_uj_per_period === null
    ? '—'
    : `${sig(Number(p.idle_uj_per_period) / Number(periodUs))} W`;
}

/** Columns padded to their widest cell, two spaces apart. */
function columns(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => [...r[i]!].length)));
  return rows.map((r) =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c + ' '.repeat(widths[i]! - [...c].length)))
      .join('  ')
      .trimEnd(),
  );
}

/** The method, in one line. */
export const METHOD_LINE =
  "method: joules from the hops' signed records over each pathway's usable periods; average = J / D (attributional view); marginal = the least-squares slope of J on D over the periods, with its 95 % interval, its intercept the idle power; saved = Σ (baseline's figure − pathway's) × pathway's delivery, in each view (docs/energy.md)";

/** The span of an account: `2026-… to 2026-… (40 periods of 1s)`. */
export function spanText(a: EnergyAccountJson): string {
  const from = BigInt(a.from);
  const to = BigInt(a.to);
  const P = BigInt(a.period_us);
  const n = (to - from) / P;
  return `${formatInstant(from)} to ${formatInstant(to)} (${n} period${n === 1n ? '' : 's'} of ${formatDuration(P)})`;
}

/** The savings, in both views, with their sign and the marginal one's interval. */
export function savingsLines(a: EnergyAccountJson): string[] {
  const ci = a.saved_marginal_ci95_uj;
  const average =
    a.saved_average_uj === null
      ? `— (the baseline ${a.baseline.pathway} has no average: it delivered nothing)`
      : savingText(a.saved_average_uj);
  const marginal =
    a.saved_marginal_uj === null
      ? '— (a marginal figure it needs is null: see "why null")'
      : `${savingText(a.saved_marginal_uj)}${ci === null ? '' : `, 95 % interval [${savingText(String(Math.round(ci[0])))}, ${savingText(String(Math.round(ci[1])))}]`}`;
  return [`saved, average view:  ${average}`, `saved, marginal view: ${marginal}`];
}

/** The account as a readable table (`wai-steer energy`), lines ending in a newline. */
export function energyTable(a: EnergyAccountJson): string {
  const basis = a.basis;
  const head = [
    'pathway',
    'periods',
    'unusable',
    'energy',
    'delivery',
    `average`,
    `marginal [95 % CI]`,
    'idle power',
    'r²',
    'why null',
    'sessions placed',
    'served',
  ];
  const rows = a.pathways.map((p) => [
    p.id,
    String(p.periods),
    String(p.periods_unusable),
    energyText(p.joules_uj),
    deliveryText(p.delivery, basis),
    p.average_pj_per_unit === null ? '—' : perUnitText(p.average_pj_per_unit, basis),
    marginalText(p, basis),
    idleText(p, a.period_us),
    p.r2 === null ? '—' : p.r2.toFixed(4),
    p.marginal_why ?? '',
    p.sessions_placed ?? '—',
    p.sessions_served,
  ]);
  const lines = [
    `energy account of room ${a.room}`,
    `span: ${spanText(a)}`,
    `delivery: ${basis === 2 ? 'subscriber time at the floor tier or above (basis 2); per unit in Wh an hour delivered' : 'media bytes out (basis 1); per unit in Wh a GB'}`,
    `baseline: ${a.baseline.pathway} (the policy's initial pathway: where players stay without steering)`,
    '',
    ...columns([head, ...rows]),
    '',
    ...savingsLines(a),
    METHOD_LINE,
  ];
  return `${lines.join('\n')}\n`;
}

/** The account in a few lines (the audit's summary). */
export function energyLines(a: EnergyAccountJson): string[] {
  const usable = a.pathways.map((p) => `${p.id} ${p.periods}`).join(', ');
  return [
    `energy: ${spanText(a)}; usable periods ${usable}; baseline ${a.baseline.pathway}`,
    ...savingsLines(a).map((l) => `  ${l}`),
  ];
}
