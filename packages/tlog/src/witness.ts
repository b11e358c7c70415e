// tlog-witness: the add-checkpoint request body, and the witness's decision on it, pure (the
// caller holds the state, persists the new one atomically, and answers over HTTP).
import { bytesEqual, type CryptoBackend, getBackend, toHex } from '@wai-steering/wire';
import { type Checkpoint, parseCheckpoint } from './checkpoint.js';
import type { Cosigner } from './cosignature.js';
import { checkCosignatureTimestamp } from './internal/cosig.js';
import { checkU64, isHash } from './internal/hash.js';
import { attempt } from './internal/result.js';
import { decodeBase64, encodeBase64, fromUtf8, parseDecimal, utf8 } from './internal/text.js';
import { emptyRoot, verifyConsistency } from './merkle.js';
import {
  formatNote,
  formatSignatureLine,
  type Note,
  type NoteSignature,
  openNote,
  parseNote,
  type VerifiedSignature,
  type VerifierKey,
} from './note.js';
import { TlogRefusal, type TlogResult } from './refusal.js';

/** tlog-witness: "The client MUST NOT send more than 63 consistency proof lines." */
export const MAX_CONSISTENCY_LINES = 63;

/** An add-checkpoint request body, read. */
export interface AddCheckpointRequest {
  /** The size of the previous checkpoint the log believes the witness has. */
  readonly oldSize: bigint;
  /** RFC 6962 §2.1.2 consistency proof from `oldSize` to the checkpoint's size. */
  readonly proof: readonly Uint8Array[];
  /** The signed checkpoint, verbatim, and as read (note and text; not verified). */
  readonly checkpoint: string;
  readonly note: Note;
  readonly parsed: Checkpoint;
}

/**
 * Writes an add-checkpoint request body: `old N`, the consistency proof's lines, an empty line,
 * the signed checkpoint.
 */
export function formatAddCheckpoint(request: {
  readonly oldSize: bigint;
  readonly proof: readonly Uint8Array[];
  readonly checkpoint: string;
}): string {
  if (request === null || typeof request !== 'object')
    throw new TypeError('formatAddCheckpoint: expected a request');
  checkU64(request.oldSize, 'formatAddCheckpoint: oldSize');
  if (!Array.isArray(request.proof) || !request.proof.every(isHash)) {
    throw new TypeError('formatAddCheckpoint: proof: expected 32-byte hashes');
  }
  if (request.proof.length > MAX_CONSISTENCY_LINES)
    throw new TypeError('formatAddCheckpoint: more than 63 proof lines');
  const note = typeof request.checkpoint === 'string' ? parseNote(request.checkpoint) : undefined;
  if (note === undefined || !note.ok || !parseCheckpoint(note.value.text).ok) {
    throw new TypeError('formatAddCheckpoint: checkpoint: expected a signed checkpoint');
  }
  const lines = [`old ${request.oldSize}`, ...request.proof.map(encodeBase64)];
  return `${lines.join('\n')}\n\n${request.checkpoint}`;
}

/**
 * Reads an add-checkpoint request body strictly (tlog-witness, "add-checkpoint"): `old`, a
 * space and a decimal without leading zeroes; up to 63 lines each the canonical base64 of a
 * 32-byte hash; an empty line; a signed checkpoint (note and text read, not verified). Each line
 * ends in a newline. `malformed`, or `limit` past 63 proof lines: answer 400.
 */
export function parseAddCheckpoint(body: string | Uint8Array): TlogResult<AddCheckpointRequest> {
  let text: string;
  if (body instanceof Uint8Array) {
    const decoded = fromUtf8(body);
    if (decoded === undefined)
      return { ok: false, refusal: new TlogRefusal('malformed', { what: 'request' }, 'not UTF-8') };
    text = decoded;
  } else if (typeof body === 'string') {
    text = body;
  } else {
    throw new TypeError('parseAddCheckpoint: expected a string or a Uint8Array');
  }
  return attempt(() => {
    const bad = (line: number, detail: string): never => {
      throw new TlogRefusal('malformed', { what: 'request', line }, detail);
    };
    let end = text.indexOf('\n');
    if (end < 0) bad(1, 'no old size line');
    const first = text.slice(0, end);
    if (!first.startsWith('old ')) bad(1, 'the first line is not `old <size>`');
    const oldSize = parseDecimal(first.slice(4));
    if (oldSize === undefined || oldSize === 'limit')
      bad(1, 'the old size is not a u64 decimal without leading zeroes');
    const proof: Uint8Array[] = [];
    let at = end + 1;
    for (let line = 2; ; line++) {
      end = text.indexOf('\n', at);
      if (end < 0) bad(line, 'no empty line before the checkpoint');
      const l = text.slice(at, end);
      at = end + 1;
      if (l === '') break;
      if (proof.length === MAX_CONSISTENCY_LINES) {
        throw new TlogRefusal(
          'limit',
          { what: 'request', line },
          'more than 63 consistency proof lines',
        );
      }
      const h = decodeBase64(l);
      if (h === undefined || h.length !== 32)
        bad(line, 'a proof line is not the base64 of 32 bytes');
      proof.push(h!);
    }
    const checkpoint = text.slice(at);
    const note = parseNote(checkpoint);
    if (!note.ok)
      throw new TlogRefusal(
        note.refusal.reason,
        { what: 'request' },
        `checkpoint: ${note.refusal.message}`,
      );
    const parsed = parseCheckpoint(note.value.text);
    if (!parsed.ok)
      throw new TlogRefusal(
        parsed.refusal.reason,
        { what: 'request' },
        `checkpoint: ${parsed.refusal.message}`,
      );
    return {
      oldSize: oldSize as bigint,
      proof,
      checkpoint,
      note: note.value,
      parsed: parsed.value,
    };
  });
}

/** What a witness keeps per origin: the latest checkpoint it cosigned. */
export interface WitnessState {
  readonly size: bigint;
  readonly root: Uint8Array;
  /**
   * That checkpoint with the log's signatures the witness verified and its own cosignatures:
   * what it serves at `GET <monitoring prefix>/<origin hash>/checkpoint`.
   */
  readonly checkpoint: string;
}

export interface AddCheckpointContext {
  /** The log keys the witness trusts for the checkpoint's origin; `undefined` when it knows none. */
  readonly logKeys: readonly VerifierKey[] | undefined;
  /** The stored state for that origin; `undefined` when the witness never cosigned for it. */
  readonly state: WitnessState | undefined;
  /** The witness's cosigning key(s). */
  readonly cosigners: readonly Cosigner[];
  /** The time of the cosignatures, POSIX seconds (never 0). */
  readonly timestamp: bigint;
  readonly backend?: CryptoBackend;
}

/** The witness's answer: an HTTP status, a content type and a body; the state to persist on 200. */
export type AddCheckpointAnswer =
  | {
      readonly status: 200;
      readonly contentType: 'text/plain; charset=utf-8';
      /** One cosignature line per cosigner, each `— <name> <base64>` and a newline. */
      readonly body: string;
      readonly cosignatures: readonly NoteSignature[];
      /** Persist atomically with the check of the old size (tlog-witness). */
      readonly state: WitnessState;
    }
  | {
      readonly status: 409;
      readonly contentType: 'text/x.tlog.size';
      /** The stored size in decimal and a newline. */
      readonly body: string;
    }
  | {
      readonly status: 400 | 403 | 404 | 422;
      readonly contentType: 'text/plain; charset=utf-8';
      /** One line saying why. */
      readonly body: string;
    };

/**
 * tlog-witness, add-checkpoint, in the text's order: 404 when the origin has no trusted key;
 * 403 when no trusted key's signature verifies or one fails; 400 when the old size is above the
 * checkpoint's; 409 (`text/x.tlog.size`, the stored size) when the old size is not the stored
 * size (0 when none); 422 for a size-0 checkpoint whose root is not the empty tree's, a proof
 * from old size 0, a consistency proof that does not verify against the stored root, or the
 * same size with another root; else 200 with the cosignatures and the new state.
 *
 * A body that does not parse (`parseAddCheckpoint`) is the caller's 400. The caller must check
 * the old size against the stored state and persist the new state atomically (tlog-witness: a
 * race otherwise rolls the state back).
 */
export function decideAddCheckpoint(
  request: AddCheckpointRequest,
  context: AddCheckpointContext,
): AddCheckpointAnswer {
  if (request === null || typeof request !== 'object')
    throw new TypeError('decideAddCheckpoint: expected a request');
  if (context === null || typeof context !== 'object')
    throw new TypeError('decideAddCheckpoint: expected a context');
  const { logKeys, state, cosigners, timestamp } = context;
  const backend = context.backend ?? getBackend();
  checkCosignatureTimestamp(timestamp, 'decideAddCheckpoint');
  if (!Array.isArray(cosigners) || cosigners.length === 0)
    throw new TypeError('decideAddCheckpoint: expected cosigners');
  const { parsed, note, oldSize, proof } = request;
  if (logKeys === undefined || logKeys.length === 0)
    return plain(404, `unknown origin ${parsed.origin}`);
  const opened = openNote(note, logKeys, backend);
  if (!opened.ok) return plain(403, opened.refusal.message);
  if (oldSize > parsed.size)
    return plain(400, `old size ${oldSize} is above the checkpoint size ${parsed.size}`);
  const stored = state?.size ?? 0n;
  if (oldSize !== stored)
    return { status: 409, contentType: 'text/x.tlog.size', body: `${stored}\n` };
  const empty = emptyRoot(backend);
  if (parsed.size === 0n && !bytesEqual(parsed.root, empty)) {
    return plain(422, 'a checkpoint of size 0 must have the empty tree’s root');
  }
  if (oldSize === 0n && proof.length > 0)
    return plain(422, 'a consistency proof from size 0 must be empty');
  const oldRoot = state?.root ?? empty;
  if (oldSize === parsed.size && oldSize > 0n && !bytesEqual(oldRoot, parsed.root)) {
    return plain(422, 'the same size as the stored checkpoint with another root');
  }
  const refusal = verifyConsistency(
    { oldSize, newSize: parsed.size, oldRoot, newRoot: parsed.root, proof },
    backend,
  );
  if (refusal !== undefined) return plain(422, refusal.message);
  const cosignatures = cosigners.map((c) => c.cosign(note.text, timestamp));
  const kept = opened.value.verified.map((v: VerifiedSignature) => v.signature);
  return {
    status: 200,
    contentType: 'text/plain; charset=utf-8',
    body: cosignatures.map(formatSignatureLine).join(''),
    cosignatures,
    state: {
      size: parsed.size,
      root: parsed.root.slice(),
      checkpoint: formatNote({ text: note.text, signatures: [...kept, ...cosignatures] }),
    },
  };
}

function plain(status: 400 | 403 | 404 | 422, why: string): AddCheckpointAnswer {
  return { status, contentType: 'text/plain; charset=utf-8', body: `${why}\n` };
}

/**
 * tlog-witness, "Monitor Retrieval Mechanism": the origin hash of
 * `GET <monitoring prefix>/<origin hash>/checkpoint`, SHA-256 of the origin, lowercase hex.
 */
export function originHash(origin: string, backend?: CryptoBackend): string {
  if (typeof origin !== 'string' || origin.length === 0)
    throw new TypeError('originHash: expected an origin');
  return toHex((backend ?? getBackend()).sha256(utf8(origin)));
}

/**
 * The log's side of add-checkpoint's 200: the response's cosignature lines added to the signed
 * checkpoint the log sent. tlog-witness: "The client MUST ignore any cosignatures from unknown
 * keys"; those of `witnessKeys` must verify on the checkpoint (`bad_signature` otherwise), and
 * are added unless the checkpoint already carries the same line. Gives the new signed note and
 * the cosignatures it verified.
 */
export function addCosignatures(
  checkpoint: string,
  response: string,
  witnessKeys: readonly VerifierKey[],
  backend?: CryptoBackend,
): TlogResult<{
  readonly checkpoint: string;
  readonly cosignatures: readonly VerifiedSignature[];
}> {
  if (typeof checkpoint !== 'string' || typeof response !== 'string') {
    throw new TypeError('addCosignatures: expected the checkpoint and the response body');
  }
  const base = parseNote(checkpoint);
  if (!base.ok) throw new TypeError('addCosignatures: the checkpoint is not a signed note');
  // A response is signature lines: read them as the signature block of the checkpoint's text.
  const joined = parseNote(`${base.value.text}\n${response}`);
  if (!joined.ok) {
    return {
      ok: false,
      refusal: new TlogRefusal(
        joined.refusal.reason,
        { what: 'cosignatures' },
        joined.refusal.message,
      ),
    };
  }
  const opened = openNote(joined.value, witnessKeys, backend);
  if (!opened.ok) {
    if (opened.refusal.reason === 'unverified') {
      return { ok: true, value: { checkpoint, cosignatures: [] } };
    }
    return { ok: false, refusal: opened.refusal };
  }
  const have = new Set(base.value.signatures.map((s) => formatSignatureLine(s)));
  const added = opened.value.verified.filter((v) => !have.has(formatSignatureLine(v.signature)));
  return {
    ok: true,
    value: {
      checkpoint: formatNote({
        text: base.value.text,
        signatures: [...base.value.signatures, ...added.map((v) => v.signature)],
      }),
      cosignatures: opened.value.verified,
    },
  };
}
