/**
 * The account's JSON (docs/energy.md, *The JSON*): every exact integer (µs, µJ, delivery, pJ per unit,
 * sessions, savings) a decimal string; `periods`, `periods_unusable`, `basis` and the float
 * fields JSON numbers; written canonically (RFC 8785); and read back strictly.
 */

import { canonicalJson, type JsonValue } from './canonical.js';
import { EnergyRefusal, type EnergyResult } from './errors.js';
import type { MarginalWhy } from './fit.js';
import { parseStrictJson } from './strict-json.js';
import type { EnergyAccount, PathwayAccount } from './types.js';

/** One pathway of an account's JSON. */
export interface PathwayAccountJson {
  readonly id: string;
  readonly periods: number;
  readonly periods_unusable: number;
  readonly joules_uj: string;
  readonly delivery: string;
  readonly average_pj_per_unit: string | null;
  readonly marginal_pj_per_unit: string | null;
  readonly marginal_ci95_pj_per_unit: readonly [number, number] | null;
  readonly idle_uj_per_period: string | null;
  readonly r2: number | null;
  readonly marginal_why: MarginalWhy | null;
  readonly sessions_served: string;
  readonly sessions_placed: string | null;
}

/** An account's JSON (item 1g). */
export interface EnergyAccountJson {
  readonly room: string;
  readonly from: string;
  readonly to: string;
  readonly period_us: string;
  readonly basis: number;
  readonly baseline: { readonly pathway: string; readonly why: 'initial' };
  readonly pathways: readonly PathwayAccountJson[];
  readonly saved_average_uj: string | null;
  readonly saved_marginal_uj: string | null;
  readonly saved_marginal_ci95_uj: readonly [number, number] | null;
}

const str = (x: bigint | null): string | null => (x === null ? null : x.toString());
const big = (x: string | null): bigint | null => (x === null ? null : BigInt(x));
const pair = (x: readonly [number, number] | null): readonly [number, number] | null =>
  x === null ? null : [x[0], x[1]];

/** The account as its JSON value (item 1g). */
export function accountJson(a: EnergyAccount): EnergyAccountJson {
  return {
    room: a.room,
    from: a.from.toString(),
    to: a.to.toString(),
    period_us: a.period_us.toString(),
    basis: a.basis,
    baseline: { pathway: a.baseline.pathway, why: a.baseline.why },
    pathways: a.pathways.map(
      (p): PathwayAccountJson => ({
        id: p.id,
        periods: p.periods,
        periods_unusable: p.periods_unusable,
        joules_uj: p.joules_uj.toString(),
        delivery: p.delivery.toString(),
        average_pj_per_unit: str(p.average_pj_per_unit),
        marginal_pj_per_unit: str(p.marginal_pj_per_unit),
        marginal_ci95_pj_per_unit: pair(p.marginal_ci95_pj_per_unit),
        idle_uj_per_period: str(p.idle_uj_per_period),
        r2: p.r2,
        marginal_why: p.marginal_why,
        sessions_served: p.sessions_served.toString(),
        sessions_placed: str(p.sessions_placed),
      }),
    ),
    saved_average_uj: str(a.saved_average_uj),
    saved_marginal_uj: str(a.saved_marginal_uj),
    saved_marginal_ci95_uj: pair(a.saved_marginal_ci95_uj),
  };
}

/** The account from its JSON value (the inverse of {@link accountJson}). */
export function accountFromJson(j: EnergyAccountJson): EnergyAccount {
  return {
    room: j.room,
    from: BigInt(j.from),
    to: BigInt(j.to),
    period_us: BigInt(j.period_us),
    basis: j.basis,
    baseline: { pathway: j.baseline.pathway, why: j.baseline.why },
    pathways: j.pathways.map(
      (p): PathwayAccount => ({
        id: p.id,
        periods: p.periods,
        periods_unusable: p.periods_unusable,
        joules_uj: BigInt(p.joules_uj),
        delivery: BigInt(p.delivery),
        average_pj_per_unit: big(p.average_pj_per_unit),
        marginal_pj_per_unit: big(p.marginal_pj_per_unit),
        marginal_ci95_pj_per_unit: pair(p.marginal_ci95_pj_per_unit),
        idle_uj_per_period: big(p.idle_uj_per_period),
        r2: p.r2,
        marginal_why: p.marginal_why,
        sessions_served: BigInt(p.sessions_served),
        sessions_placed: big(p.sessions_placed),
      }),
    ),
    saved_average_uj: big(j.saved_average_uj),
    saved_marginal_uj: big(j.saved_marginal_uj),
    saved_marginal_ci95_uj: pair(j.saved_marginal_ci95_uj),
  };
}

/** The account's canonical JSON text (RFC 8785): what a statement carries and a server serves. */
export function writeAccount(a: EnergyAccount): string {
  return canonicalJson(accountJson(a) as unknown as JsonValue);
}

const UNSIGNED = /^(?:0|[1-9][0-9]*)$/;
const SIGNED = /^(?:0|-?[1-9][0-9]*)$/;
const ROOM = /^[0-9a-f]{64}$/;

type Check = (v: JsonValue) => string | undefined;
const isObject = (v: JsonValue): v is { readonly [n: string]: JsonValue } =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const unsigned: Check = (v) =>
  typeof v === 'string' && UNSIGNED.test(v) ? undefined : 'an unsigned decimal string';
const signed: Check = (v) =>
  typeof v === 'string' && SIGNED.test(v) ? undefined : 'a decimal string';
const count: Check = (v) =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? undefined : 'a whole number';
const float: Check = (v) => (typeof v === 'number' ? undefined : 'a number');
const text: Check = (v) => (typeof v === 'string' && v !== '' ? undefined : 'a string');
const interval: Check = (v) =>
  Array.isArray(v) && v.length === 2 && v.every((x) => typeof x === 'number')
    ? undefined
    : 'two numbers';
const orNull =
  (c: Check): Check =>
  (v) =>
    v === null ? undefined : c(v);
const oneOf =
  (...xs: readonly (string | number | null)[]): Check =>
  (v) =>
    xs.includes(v as string) ? undefined : xs.map((x) => JSON.stringify(x)).join(' or ');

const PATHWAY: Record<keyof PathwayAccountJson, Check> = {
  id: text,
  periods: count,
  periods_unusable: count,
  joules_uj: unsigned,
  delivery: unsigned,
  average_pj_per_unit: orNull(unsigned),
  marginal_pj_per_unit: orNull(signed),
  marginal_ci95_pj_per_unit: orNull(interval),
  idle_uj_per_period: orNull(signed),
  r2: orNull(float),
  marginal_why: oneOf(null, 'too_few_periods', 'no_variance'),
  sessions_served: unsigned,
  sessions_placed: orNull(unsigned),
};

function members(v: JsonValue, shape: Record<string, Check>, pointer: string): void {
  if (!isObject(v)) throw notAccount(pointer, 'an object');
  for (const name of Object.keys(v)) {
    if (!(name in shape)) throw notAccount(`${pointer}/${name}`, 'no such member');
  }
  for (const [name, check] of Object.entries(shape)) {
    if (!(name in v)) throw notAccount(`${pointer}/${name}`, 'missing');
    const problem = check(v[name]!);
    if (problem !== undefined) throw notAccount(`${pointer}/${name}`, `not ${problem}`);
  }
}

function notAccount(pointer: string, detail: string): EnergyRefusal {
  return new EnergyRefusal('not_an_account', { what: 'json', pointer }, detail);
}

const ACCOUNT: Record<keyof EnergyAccountJson, Check> = {
  room: (v) => (typeof v === 'string' && ROOM.test(v) ? undefined : '64 lowercase hex digits'),
  from: unsigned,
  to: unsigned,
  period_us: unsigned,
  basis: oneOf(1, 2),
  baseline: (v) => {
    members(v, { pathway: text, why: oneOf('initial') }, '/baseline');
    return undefined;
  },
  pathways: (v) => {
    if (!Array.isArray(v)) return 'an array';
    v.forEach((p, i) => {
      members(p, PATHWAY, `/pathways/${i}`);
    });
    return undefined;
  },
  saved_average_uj: orNull(signed),
  saved_marginal_uj: orNull(signed),
  saved_marginal_ci95_uj: orNull(interval),
};

/**
 * Reads an account's JSON text strictly: JSON with no duplicate member (`malformed`,
 * `duplicate_member`), then exactly the members of item 1g, each of its type
 * (`not_an_account`, at the member's JSON pointer). Any formatting is read; a statement also
 * requires the canonical text (`openStatement`).
 */
export function readAccount(text: string): EnergyResult<EnergyAccountJson> {
  const parsed = parseStrictJson(text);
  if (!parsed.ok) return parsed;
  try {
    members(parsed.value, ACCOUNT, '');
  } catch (e) {
    if (e instanceof EnergyRefusal) return { ok: false, refusal: e };
    throw e;
  }
  return { ok: true, value: parsed.value as unknown as EnergyAccountJson };
}
