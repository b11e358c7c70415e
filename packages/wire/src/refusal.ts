import type { Reason } from './reasons.js';

/** The places of companion C7, where a verification stops. */
export type Place = 'room' | 'policy' | 'decision' | 'evidence' | 'pathway' | 'output' | 'manifest';

/** The record kinds, by magic. */
export type Magic = 'WSP1' | 'WSD1' | 'WRD1' | 'WKL1' | 'WMH1';

/**
 * Where a refusal was raised. A reader fills `magic`, `field` and `offset` (the byte offset of
 * the field in the bytes it was given); a verifier fills `at` and, where the place has them,
 * `pathway` and `record` (companion C7, C8).
 */
export interface Where {
  readonly at?: Place;
  readonly pathway?: number;
  readonly record?: number;
  readonly magic?: Magic;
  readonly field?: string;
  readonly offset?: number;
}

const MARKER = Symbol.for('@wai-steering/wire.Refusal');

/**
 * The project's one typed refusal: a reason code of companion C7 and where it was raised.
 * Recognised across duplicate copies of this package by {@link isRefusal}.
 */
export class Refusal extends Error {
  readonly reason: Reason;
  readonly where: Where;

  constructor(reason: Reason, where: Where = {}, detail?: string) {
    super(describe(reason, where, detail));
    this.name = 'Refusal';
    this.reason = reason;
    this.where = where;
    Object.defineProperty(this, MARKER, { value: true });
  }

  /** The same refusal at another place (a verifier places a reader's refusal). */
  at(where: Where): Refusal {
    return new Refusal(this.reason, { ...this.where, ...where });
  }
}

function describe(reason: Reason, where: Where, detail: string | undefined): string {
  const parts: string[] = [reason];
  if (where.magic !== undefined) parts.push(where.magic);
  if (where.field !== undefined) parts.push(`field ${where.field}`);
  if (where.offset !== undefined) parts.push(`offset ${where.offset}`);
  if (where.at !== undefined) parts.push(`at ${where.at}`);
  if (where.pathway !== undefined) parts.push(`pathway ${where.pathway}`);
  if (where.record !== undefined) parts.push(`record ${where.record}`);
  const head = parts.join(', ');
  return detail === undefined ? head : `${head}: ${detail}`;
}

/** Whether `value` is a {@link Refusal}, from this copy of the package or any other. */
export function isRefusal(value: unknown): value is Refusal {
  return typeof value === 'object' && value !== null && MARKER in value;
}

/** What a public reader returns: a value, or the refusal that stopped it. */
export type Result<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly refusal: Refusal };
