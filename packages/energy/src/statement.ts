/**
 * The signed statement (docs/energy.md, *The signed statement*): a C2SP signed note whose text is exactly two lines,
 * `wai-steering energy statement v1` and the account's canonical JSON, signed by the steering
 * key under the key name and key ID of the decision log's checkpoints (the log's origin,
 * Ed25519, signed-note type 0x01); its verification; and the auditor's comparison of a
 * statement with the account it recomputes.
 */
import {
  type NoteSigner,
  openNote,
  signNote,
  type VerifiedSignature,
  type VerifierKey,
} from '@wai-steering/tlog';
import type { CryptoBackend } from '@wai-steering/wire';
import { canonicalJson, type JsonValue } from './canonical.js';
import { type EnergyReason, EnergyRefusal, type EnergyResult } from './errors.js';
import { type EnergyAccountJson, readAccount, writeAccount } from './json.js';
import type { EnergyAccount } from './types.js';

/** The first line of a statement's text. */
export const STATEMENT_HEADER = 'wai-steering energy statement v1';

/** The statement's note text: the header line and the account's canonical JSON, each ending in a newline. */
export function statementText(account: EnergyAccount): string {
  return `${STATEMENT_HEADER}\n${writeAccount(account)}\n`;
}

/**
 * The signed statement of an account (a signed note, as `GET /energy/statement` answers it and
 * `archive export` writes it): signed by `signer`, which a server makes as it makes its log's
 * (`ed25519Signer(origin, steeringSecretKey)` of `@wai-steering/tlog`).
 */
export function signStatement(account: EnergyAccount, signer: NoteSigner): string {
  return signNote(statementText(account), [signer]);
}

/** A statement whose signature verified, and the account it states. */
export interface OpenedStatement {
  /** The account, as its JSON (item 1g). */
  readonly account: EnergyAccountJson;
  /** The note's text (the two lines). */
  readonly text: string;
  /** The signatures by the keys given that verified (at least one). */
  readonly verified: readonly VerifiedSignature[];
}

function refused<T>(
  reason: EnergyReason,
  line: number | undefined,
  detail: string,
): EnergyResult<T> {
  return {
    ok: false,
    refusal: new EnergyRefusal(
      reason,
      { what: 'statement', ...(line === undefined ? {} : { line }) },
      detail,
    ),
  };
}

/**
 * Verifies a statement (`wai-steer energy verify FILE`, the auditor): the note reads and carries
 * a signature by one of `keys` that verifies (signed-note; the keys of the room's decision log,
 * `roomLogKeys(room, origin)` of `@wai-steering/auditor`); its text is exactly the two lines
 * (`not_a_statement`); the account reads strictly (`readAccount`: no duplicate member, the shape
 * of item 1g) and is written canonically (`not_canonical`). A refusal otherwise, one reason.
 */
export function openStatement(
  note: string | Uint8Array,
  keys: readonly VerifierKey[],
  backend?: CryptoBackend,
): EnergyResult<OpenedStatement> {
  const opened = openNote(note, keys, backend);
  if (!opened.ok) {
    const r = opened.refusal;
    const reason: EnergyReason =
      r.reason === 'bad_signature' || r.reason === 'unverified' ? r.reason : 'malformed';
    return refused(reason, r.where.line, r.message);
  }
  const text = opened.value.note.text;
  const lines = text.split('\n');
  if (lines.length !== 3 || lines[0] !== STATEMENT_HEADER) {
    return refused(
      'not_a_statement',
      lines[0] === STATEMENT_HEADER ? 2 : 1,
      `the text is not the two lines "${STATEMENT_HEADER}" and the account's JSON`,
    );
  }
  const json = lines[1]!;
  const read = readAccount(json);
  if (!read.ok) return read;
  if (canonicalJson(read.value as unknown as JsonValue) !== json) {
    return refused('not_canonical', 2, 'the account is not written canonically (RFC 8785)');
  }
  return { ok: true, value: { account: read.value, text, verified: opened.value.verified } };
}

/** The auditor's comparison: the statement agrees, or the JSON pointers where it differs. */
export type StatementComparison = 'agrees' | { readonly differs: readonly string[] };

/** The float fields of item 1g: compared within 1e-9 relative, every other field exactly. */
const FLOAT_FIELD =
  /^(?:\/pathways\/\d+\/(?:r2|marginal_ci95_pj_per_unit\/[01])|\/saved_marginal_ci95_uj\/[01])$/;

/** The relative tolerance of the float fields (item 3). */
export const FLOAT_TOLERANCE = 1e-9;

function pointerToken(name: string): string {
  return name.replace(/~/g, '~0').replace(/\//g, '~1');
}

function floatsAgree(x: number, y: number): boolean {
  return x === y || Math.abs(x - y) <= FLOAT_TOLERANCE * Math.max(Math.abs(x), Math.abs(y));
}

function diff(x: unknown, y: unknown, pointer: string, out: string[]): void {
  if (typeof x === 'number' && typeof y === 'number' && FLOAT_FIELD.test(pointer)) {
    if (!floatsAgree(x, y)) out.push(pointer);
    return;
  }
  if (Array.isArray(x) && Array.isArray(y)) {
    for (let i = 0; i < Math.max(x.length, y.length); i++) {
      if (i >= x.length || i >= y.length) out.push(`${pointer}/${i}`);
      else diff(x[i], y[i], `${pointer}/${i}`, out);
    }
    return;
  }
  const isObj = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (isObj(x) && isObj(y)) {
    const xs = x as Record<string, unknown>;
    const ys = y as Record<string, unknown>;
    const names = [...new Set([...Object.keys(xs), ...Object.keys(ys)])].sort();
    for (const n of names) {
      const at = `${pointer}/${pointerToken(n)}`;
      if (!(n in xs) || !(n in ys)) out.push(at);
      else diff(xs[n], ys[n], at, out);
    }
    return;
  }
  if (x !== y) out.push(pointer);
}

/**
 * Item 3: the statement's account against the one recomputed. Integers and exact fields (every
 * decimal string, `periods`, `periods_unusable`, `basis`, IDs, `null`s) must be equal; the float
 * fields (`r2`, the intervals' bounds) within 1e-9 relative: |x − y| ≤ 1e-9 × max(|x|, |y|).
 * `"agrees"`, or `{ differs }` with the JSON pointers (RFC 6901) of every field that differs, in
 * the order of the members' names.
 */
export function compareAccounts(
  recomputed: EnergyAccountJson,
  stated: EnergyAccountJson,
): StatementComparison {
  const out: string[] = [];
  diff(recomputed, stated, '', out);
  return out.length === 0 ? 'agrees' : { differs: out };
}
