/**
 * The two typed errors of the account: a span the account refuses (the user's mistake at the
 * edge: a command exits 2 with its message, a server answers `400` with it), and the refusal of
 * a reader (the account's JSON, a statement).
 */

/** Why a span is refused (`EnergySpanError.problem`). */
export type SpanProblem = 'empty' | 'not_aligned' | 'policy_changes';

const SPAN_MARKER = Symbol.for('@wai-steering/energy.EnergySpanError');

/**
 * A span `[from, to)` the account refuses (docs/energy.md, *The method*): empty, not aligned to the period P of
 * the policy in force at `to`, or over which the policy in force changes its P, basis, `initial`
 * or a pathway's hops. Its `message` is one line naming what to fix; `instant` is the bound that
 * is not aligned, or the first instant at which the policy changes (split the span there);
 * `fields` names what changes there (`period_us`, `basis`, `initial`, `pathways.<id>.hops`,
 * `pathways.<id>` for a pathway added or removed).
 */
export class EnergySpanError extends Error {
  readonly problem: SpanProblem;
  readonly instant: bigint | undefined;
  readonly fields: readonly string[];

  constructor(problem: SpanProblem, message: string, instant?: bigint, fields: string[] = []) {
    super(message);
    this.name = 'EnergySpanError';
    this.problem = problem;
    this.instant = instant;
    this.fields = Object.freeze(fields);
    Object.defineProperty(this, SPAN_MARKER, { value: true });
  }
}

/** Whether `value` is an {@link EnergySpanError}, from this copy of the package or another. */
export function isEnergySpanError(value: unknown): value is EnergySpanError {
  return typeof value === 'object' && value !== null && SPAN_MARKER in value;
}

/** The reasons a reader of this package refuses its input, one per refusal. */
export const ENERGY_REASONS = [
  /** Not JSON (RFC 8259), or a note that does not read (signed-note). */
  'malformed',
  /** An object with two members of one name. */
  'duplicate_member',
  /** JSON, but not an account of the shape of docs/energy.md, *The JSON*. */
  'not_an_account',
  /** A statement whose account is not written canonically (RFC 8785). */
  'not_canonical',
  /** A note whose text is not the two lines of a statement. */
  'not_a_statement',
  /** signed-note: a signature by a known key does not verify. */
  'bad_signature',
  /** signed-note: no signature by a known key. */
  'unverified',
] as const;

/** A reason of {@link ENERGY_REASONS}. */
export type EnergyReason = (typeof ENERGY_REASONS)[number];

/** Where a reader stopped: the JSON pointer (RFC 6901) of a member, or the offset of a character. */
export interface EnergyWhere {
  /** `json` (the account's text) or `statement` (the note). */
  readonly what: 'json' | 'statement';
  readonly pointer?: string;
  /** The 0-based offset (UTF-16 code units) in the text. */
  readonly offset?: number;
  /** The 1-based line of a note. */
  readonly line?: number;
}

const REFUSAL_MARKER = Symbol.for('@wai-steering/energy.EnergyRefusal');

/** The one typed refusal of this package's readers: a reason and where. */
export class EnergyRefusal extends Error {
  readonly reason: EnergyReason;
  readonly where: EnergyWhere;

  constructor(reason: EnergyReason, where: EnergyWhere, detail?: string) {
    const at: string[] = [where.what];
    if (where.pointer !== undefined) at.push(where.pointer === '' ? '(root)' : where.pointer);
    if (where.offset !== undefined) at.push(`offset ${where.offset}`);
    if (where.line !== undefined) at.push(`line ${where.line}`);
    super(`${reason}, ${at.join(', ')}${detail === undefined ? '' : `: ${detail}`}`);
    this.name = 'EnergyRefusal';
    this.reason = reason;
    this.where = where;
    Object.defineProperty(this, REFUSAL_MARKER, { value: true });
  }
}

/** Whether `value` is an {@link EnergyRefusal}, from this copy of the package or another. */
export function isEnergyRefusal(value: unknown): value is EnergyRefusal {
  return typeof value === 'object' && value !== null && REFUSAL_MARKER in value;
}

/** What a reader returns: a value, or the refusal that stopped it (wire's `Result` shape). */
export type EnergyResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly refusal: EnergyRefusal };
