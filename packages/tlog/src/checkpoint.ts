// tlog-checkpoint: a signed note whose text is a log's origin, tree size and root hash.
import type { CryptoBackend } from '@wai-steering/wire';
import { checkU64, isHash } from './internal/hash.js';
import { attempt } from './internal/result.js';
import {
  decodeBase64,
  encodeBase64,
  hasControl,
  isWellFormed,
  parseDecimal,
} from './internal/text.js';
import {
  type Note,
  type NoteSigner,
  noteOf,
  type OpenedNote,
  openNote,
  signNote,
  type VerifierKey,
} from './note.js';
import { TlogRefusal, type TlogResult } from './refusal.js';

/** A checkpoint's note text, read. */
export interface Checkpoint {
  /** The log's identity, the first line (non-empty). */
  readonly origin: string;
  /** The tree size, a u64. */
  readonly size: bigint;
  /** The RFC 6962 root hash at that size (32 bytes). */
  readonly root: Uint8Array;
  /** Extension lines, opaque and non-empty ("NOT RECOMMENDED"; this log writes none). */
  readonly extensions: readonly string[];
}

/**
 * Writes a checkpoint's note text: the origin, the size in decimal, the root in base64, then
 * any extension lines, each ending in a newline.
 */
export function formatCheckpoint(checkpoint: Checkpoint): string {
  if (checkpoint === null || typeof checkpoint !== 'object')
    throw new TypeError('formatCheckpoint: expected a Checkpoint');
  const { origin, size, root, extensions = [] } = checkpoint;
  checkLine(origin, 'formatCheckpoint: origin');
  checkU64(size, 'formatCheckpoint: size');
  if (!isHash(root)) throw new TypeError('formatCheckpoint: root: expected 32 bytes');
  if (!Array.isArray(extensions))
    throw new TypeError('formatCheckpoint: extensions: expected an array');
  for (const e of extensions) checkLine(e, 'formatCheckpoint: an extension line');
  return [origin, size.toString(), encodeBase64(root), ...extensions].map((l) => `${l}\n`).join('');
}

/**
 * Reads a checkpoint's note text strictly (tlog-checkpoint, "Note text"): at least three lines,
 * each non-empty and ending in a newline; the origin; the size in ASCII decimal with no leading
 * zero, at most 2^64 − 1; the root as the canonical base64 of 32 bytes; extension lines after.
 * `malformed` (or `limit` for a size past u64) otherwise.
 */
export function parseCheckpoint(text: string): TlogResult<Checkpoint> {
  if (typeof text !== 'string') throw new TypeError('parseCheckpoint: expected the note text');
  return attempt(() => {
    const bad = (line: number | undefined, detail: string): never => {
      throw new TlogRefusal(
        'malformed',
        line === undefined ? { what: 'checkpoint' } : { what: 'checkpoint', line },
        detail,
      );
    };
    if (!isWellFormed(text) || hasControl(text)) bad(undefined, 'not note text');
    if (!text.endsWith('\n')) bad(undefined, 'the text does not end in a newline');
    const lines = text.slice(0, -1).split('\n');
    if (lines.length < 3) bad(undefined, 'fewer than three lines');
    lines.forEach((l, i) => {
      if (l.length === 0) bad(i + 1, 'an empty line');
    });
    const [origin, sizeLine, rootLine, ...extensions] = lines as [
      string,
      string,
      string,
      ...string[],
    ];
    const size = parseDecimal(sizeLine);
    if (size === 'limit')
      throw new TlogRefusal('limit', { what: 'checkpoint', line: 2 }, 'a size above 2^64 − 1');
    if (size === undefined) bad(2, 'the size is not a decimal without leading zeroes');
    const root = decodeBase64(rootLine);
    if (root === undefined || root.length !== 32) bad(3, 'the root is not the base64 of 32 bytes');
    return { origin, size: size as bigint, root: root!, extensions };
  });
}

/** Signs a checkpoint with the log's key(s) and writes the signed note. */
export function signCheckpoint(checkpoint: Checkpoint, signers: readonly NoteSigner[]): string {
  return signNote(formatCheckpoint(checkpoint), signers);
}

/** A checkpoint opened: its fields, and the note with its verified signatures. */
export interface OpenedCheckpoint extends OpenedNote {
  readonly checkpoint: Checkpoint;
}

export interface OpenCheckpointOptions {
  /** The origin the checkpoint must have. */
  readonly origin: string;
  /** The log's verifier keys: at least one of them must have signed. */
  readonly logKeys: readonly VerifierKey[];
  /** Other known keys (witnesses' cosignature keys): verified when present, never required. */
  readonly witnessKeys?: readonly VerifierKey[];
  readonly backend?: CryptoBackend;
}

/**
 * Reads and verifies a signed checkpoint: the note by signed-note's rules with the log's and
 * the witnesses' keys (a known key's failing signature refuses it, `bad_signature`); the text as
 * a checkpoint; its origin the one expected (`wrong_origin`); and a verified signature by a log
 * key (`unverified` when only witnesses' verified, or none).
 */
export function openCheckpoint(
  input: string | Uint8Array | Note,
  options: OpenCheckpointOptions,
): TlogResult<OpenedCheckpoint> {
  if (options === null || typeof options !== 'object' || typeof options.origin !== 'string') {
    throw new TypeError('openCheckpoint: expected { origin, logKeys }');
  }
  const { origin, logKeys, witnessKeys = [], backend } = options;
  if (!Array.isArray(logKeys) || logKeys.length === 0)
    throw new TypeError('openCheckpoint: expected log keys');
  const read = noteOf(input);
  if (!read.ok) return read;
  const note = read.value;
  const checkpoint = parseCheckpoint(note.text);
  if (!checkpoint.ok) return checkpoint;
  if (checkpoint.value.origin !== origin) {
    return {
      ok: false,
      refusal: new TlogRefusal('wrong_origin', { what: 'checkpoint', line: 1 }, `not ${origin}`),
    };
  }
  const opened = openNote(note, [...logKeys, ...witnessKeys], backend);
  if (!opened.ok) return opened;
  const isLogKey = new Set(logKeys);
  if (!opened.value.verified.some((v) => isLogKey.has(v.key))) {
    return {
      ok: false,
      refusal: new TlogRefusal('unverified', { what: 'checkpoint' }, 'no signature by the log'),
    };
  }
  return { ok: true, value: { ...opened.value, checkpoint: checkpoint.value } };
}

function checkLine(line: unknown, what: string): void {
  if (
    typeof line !== 'string' ||
    line.length === 0 ||
    line.includes('\n') ||
    hasControl(line) ||
    !isWellFormed(line)
  ) {
    throw new TypeError(`${what}: expected a non-empty line without control characters`);
  }
}
