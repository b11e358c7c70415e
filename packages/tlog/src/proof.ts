// tlog-proof (c2sp.org/tlog-proof@v1): an offline-verifiable proof that an entry is in a log,
// with the log's signed checkpoint and the witnesses' cosignatures.
import type { CryptoBackend } from '@wai-steering/wire';
import { type Checkpoint, openCheckpoint } from './checkpoint.js';
import { checkU64, isHash } from './internal/hash.js';
import { attempt } from './internal/result.js';
import { decodeBase64, encodeBase64, parseDecimal } from './internal/text.js';
import { leafHash as hashLeaf, verifyInclusion } from './merkle.js';
import {
  type Note,
  type NoteSignature,
  parseNote,
  type VerifiedSignature,
  type VerifierKey,
} from './note.js';
import { TlogRefusal, type TlogResult } from './refusal.js';

/** The first line of a proof. */
export const TLOG_PROOF_HEADER = 'c2sp.org/tlog-proof@v1';

/**
 * The most inclusion-proof lines read: a tree of at most 2^64 − 1 leaves has audit paths of at
 * most 64 hashes.
 */
const MAX_PROOF_LINES = 64;

/** A tlog proof, read or to write. */
export interface TlogProof {
  /** Opaque extra data (the `extra` line); not authenticated. This log writes none. */
  readonly extra?: Uint8Array;
  /** The entry's zero-based index in the log. */
  readonly index: bigint;
  /** RFC 6962 §2.1.1 inclusion proof, from the leaf's sibling up. */
  readonly inclusion: readonly Uint8Array[];
  /** The signed checkpoint, verbatim (a signed note). */
  readonly checkpoint: string;
}

/**
 * Writes a tlog proof: the header, the `extra` line when there is extra data, `index N`, one
 * base64 hash per line, an empty line, and the signed checkpoint verbatim.
 */
export function formatTlogProof(proof: TlogProof): string {
  if (proof === null || typeof proof !== 'object')
    throw new TypeError('formatTlogProof: expected a TlogProof');
  checkU64(proof.index, 'formatTlogProof: index');
  if (proof.extra !== undefined && !(proof.extra instanceof Uint8Array)) {
    throw new TypeError('formatTlogProof: extra: expected bytes');
  }
  if (!Array.isArray(proof.inclusion) || !proof.inclusion.every(isHash)) {
    throw new TypeError('formatTlogProof: inclusion: expected 32-byte hashes');
  }
  if (proof.inclusion.length > MAX_PROOF_LINES)
    throw new TypeError('formatTlogProof: more than 64 hashes');
  if (typeof proof.checkpoint !== 'string' || !parseNote(proof.checkpoint).ok) {
    throw new TypeError('formatTlogProof: checkpoint: expected a signed note');
  }
  const lines = [TLOG_PROOF_HEADER];
  if (proof.extra !== undefined) lines.push(`extra ${encodeBase64(proof.extra)}`);
  lines.push(`index ${proof.index}`);
  for (const h of proof.inclusion) lines.push(encodeBase64(h));
  return `${lines.join('\n')}\n\n${proof.checkpoint}`;
}

/** A tlog proof as read: its fields, and its checkpoint's note already read. */
export interface ParsedTlogProof extends TlogProof {
  readonly note: Note;
}

/**
 * Reads a tlog proof strictly (tlog-proof, "Format"): the header line; an optional `extra`
 * line of canonical base64; `index` and a decimal without leading zeroes; zero to 64 lines each
 * the canonical base64 of a 32-byte hash; an empty line; then a signed note (read, not
 * verified). `malformed` otherwise.
 */
export function parseTlogProof(input: string | Uint8Array): TlogResult<ParsedTlogProof> {
  let text: string;
  if (input instanceof Uint8Array) {
    const note = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
    try {
      text = note.decode(input);
    } catch {
      return {
        ok: false,
        refusal: new TlogRefusal('malformed', { what: 'proof' }, 'not valid UTF-8'),
      };
    }
  } else if (typeof input === 'string') {
    text = input;
  } else {
    throw new TypeError('parseTlogProof: expected a string or a Uint8Array');
  }
  return attempt(() => {
    const bad = (line: number, detail: string): never => {
      throw new TlogRefusal('malformed', { what: 'proof', line }, detail);
    };
    let at = 0;
    let lineNo = 0;
    const next = (): string => {
      const end = text.indexOf('\n', at);
      lineNo++;
      if (end < 0) bad(lineNo, 'a line does not end in a newline');
      const line = text.slice(at, end);
      at = end + 1;
      return line;
    };
    if (next() !== TLOG_PROOF_HEADER) bad(1, `the first line is not ${TLOG_PROOF_HEADER}`);
    let line = next();
    let extra: Uint8Array | undefined;
    if (line.startsWith('extra ')) {
      extra = decodeBase64(line.slice(6));
      if (extra === undefined) bad(lineNo, 'extra data not in canonical base64');
      line = next();
    }
    if (!line.startsWith('index ')) bad(lineNo, 'no index line');
    const index = parseDecimal(line.slice(6));
    if (index === undefined || index === 'limit')
      bad(lineNo, 'the index is not a u64 decimal without leading zeroes');
    const inclusion: Uint8Array[] = [];
    for (line = next(); line !== ''; line = next()) {
      if (inclusion.length === MAX_PROOF_LINES) bad(lineNo, 'more than 64 proof lines');
      const h = decodeBase64(line);
      if (h === undefined || h.length !== 32)
        bad(lineNo, 'a proof line is not the base64 of 32 bytes');
      inclusion.push(h!);
    }
    const checkpoint = text.slice(at);
    const note = parseNote(checkpoint);
    if (!note.ok) {
      const where =
        note.refusal.where.line === undefined ? {} : { line: lineNo + note.refusal.where.line };
      throw new TlogRefusal(
        note.refusal.reason,
        { what: 'proof', ...where },
        `checkpoint: ${note.refusal.message}`,
      );
    }
    return {
      ...(extra === undefined ? {} : { extra }),
      index: index as bigint,
      inclusion,
      checkpoint,
      note: note.value,
    };
  });
}

export interface VerifyTlogProofOptions {
  /** The entry the proof is for (its leaf hash is computed), or its leaf hash. */
  readonly entry?: Uint8Array;
  readonly leafHash?: Uint8Array;
  /** The origin the log's checkpoint must have. */
  readonly origin: string;
  /** The log's verifier keys for that origin. */
  readonly logKeys: readonly VerifierKey[];
  /** The witnesses the verifier knows (cosignature keys, type 0x04). */
  readonly witnessKeys?: readonly VerifierKey[];
  readonly backend?: CryptoBackend;
}

/** A witness's verified cosignature on a proof's checkpoint. */
export interface WitnessCosignature {
  readonly name: string;
  readonly keyId: number;
  readonly timestamp: bigint;
  readonly signature: NoteSignature;
}

/** What a verified tlog proof establishes. */
export interface VerifiedTlogProof {
  readonly index: bigint;
  readonly checkpoint: Checkpoint;
  readonly extra?: Uint8Array;
  /** The known witnesses' cosignatures, verified; the policy on them (k of n) is the caller's. */
  readonly cosignatures: readonly WitnessCosignature[];
}

/**
 * tlog-proof, "Verifying a tlog proof": (1) the leaf hash of the entry; (2) the checkpoint's
 * origin is the one expected and a log key signed it; (3) every cosignature of a known witness
 * verifies (a failing one refuses the proof, as signed-note says of a known key), and they are
 * reported; (4) the inclusion proof binds the leaf hash to the checkpoint's root. The first
 * failing step's refusal; the extra data is returned, never trusted.
 */
export function verifyTlogProof(
  input: string | Uint8Array | ParsedTlogProof,
  options: VerifyTlogProofOptions,
): TlogResult<VerifiedTlogProof> {
  if (options === null || typeof options !== 'object')
    throw new TypeError('verifyTlogProof: expected options');
  const { entry, origin, logKeys, witnessKeys = [], backend } = options;
  // Step 1.
  let leaf: Uint8Array;
  if (entry !== undefined) {
    if (options.leafHash !== undefined)
      throw new TypeError('verifyTlogProof: give the entry or its leaf hash, not both');
    leaf = hashLeaf(entry, backend);
  } else if (isHash(options.leafHash)) {
    leaf = options.leafHash;
  } else {
    throw new TypeError('verifyTlogProof: expected an entry or a 32-byte leaf hash');
  }
  let proof: ParsedTlogProof;
  if (typeof input === 'string' || input instanceof Uint8Array) {
    const read = parseTlogProof(input);
    if (!read.ok) return read;
    proof = read.value;
  } else {
    proof = input;
  }
  // Steps 2 and 3.
  const opened = openCheckpoint(proof.note, {
    origin,
    logKeys,
    witnessKeys,
    ...(backend ? { backend } : {}),
  });
  if (!opened.ok) return opened;
  const witnesses = new Set(witnessKeys);
  const cosignatures = opened.value.verified
    .filter((v: VerifiedSignature) => witnesses.has(v.key) && v.timestamp !== undefined)
    .map((v) => ({
      name: v.key.name,
      keyId: v.key.keyId,
      timestamp: v.timestamp!,
      signature: v.signature,
    }));
  // Step 4.
  const { checkpoint } = opened.value;
  const refusal = verifyInclusion(
    {
      leafHash: leaf,
      index: proof.index,
      size: checkpoint.size,
      proof: proof.inclusion,
      root: checkpoint.root,
    },
    backend,
  );
  if (refusal !== undefined) return { ok: false, refusal };
  return {
    ok: true,
    value: {
      index: proof.index,
      checkpoint,
      ...(proof.extra === undefined ? {} : { extra: proof.extra }),
      cosignatures,
    },
  };
}
