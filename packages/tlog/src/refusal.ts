/**
 * The reasons a transparency-log reader or verifier refuses its input, one per refusal. Closed,
 * like companion C7's list in `@wai-steering/wire`, but apart from it: these are C2SP's rules,
 * not the steering extension's.
 */
export const TLOG_REASONS = [
  /** The text or bytes break the format's grammar (a line, a number, base64, a path, a length). */
  'malformed',
  /** A stated limit is passed (signatures in a note, proof lines, a size beyond u64). */
  'limit',
  /** A verifier key of a signature type this package does not verify (ML-DSA-44, ECDSA, …). */
  'unsupported',
  /** A verifier key whose key ID is not the one its name, type and key give, or an invalid key. */
  'bad_key',
  /** signed-note: a signature by a known key does not verify. */
  'bad_signature',
  /** signed-note: no signature by a known key verifies (or none by the log's key). */
  'unverified',
  /** tlog-checkpoint: the origin is not the one expected. */
  'wrong_origin',
  /** RFC 9162 §2.1.3.2, §2.1.4.2: an inclusion or consistency proof does not verify. */
  'bad_proof',
  /** tlog-tiles: a tile's bytes do not hash to the tree the reader was given. */
  'bad_tile',
  /** tlog-tiles: a tile could not be fetched. */
  'tile_missing',
] as const;

/** A reason of {@link TLOG_REASONS}. */
export type TlogReason = (typeof TLOG_REASONS)[number];

/** What was being read or checked, and where in it. */
export interface TlogWhere {
  /** The format or step: `note`, `checkpoint`, `vkey`, `proof`, `inclusion`, `tile`, … */
  readonly what: string;
  /** The 1-based line of a text format. */
  readonly line?: number;
  /** The byte offset in a binary format (an entry bundle). */
  readonly offset?: number;
  /** A tile's path, for the tile reader. */
  readonly path?: string;
}

const MARKER = Symbol.for('@wai-steering/tlog.TlogRefusal');

/**
 * The one typed refusal of this package: a reason and where it was raised. Recognised across
 * duplicate copies of the package by {@link isTlogRefusal}.
 */
export class TlogRefusal extends Error {
  readonly reason: TlogReason;
  readonly where: TlogWhere;

  constructor(
    reason: TlogReason,
    where: TlogWhere,
    detail?: string,
    options?: { cause?: unknown },
  ) {
    super(describe(reason, where, detail), options);
    this.name = 'TlogRefusal';
    this.reason = reason;
    this.where = where;
    Object.defineProperty(this, MARKER, { value: true });
  }
}

function describe(reason: TlogReason, where: TlogWhere, detail: string | undefined): string {
  const parts: string[] = [reason, where.what];
  if (where.line !== undefined) parts.push(`line ${where.line}`);
  if (where.offset !== undefined) parts.push(`offset ${where.offset}`);
  if (where.path !== undefined) parts.push(where.path);
  const head = parts.join(', ');
  return detail === undefined ? head : `${head}: ${detail}`;
}

/** Whether `value` is a {@link TlogRefusal}, from this copy of the package or any other. */
export function isTlogRefusal(value: unknown): value is TlogRefusal {
  return typeof value === 'object' && value !== null && MARKER in value;
}

/** What a reader returns: a value, or the refusal that stopped it (wire's `Result` shape). */
export type TlogResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly refusal: TlogRefusal };
