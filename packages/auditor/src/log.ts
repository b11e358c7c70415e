/**
 * The decision log's check (`docs/audit.md`, *The log*): a server's decision log is a tiled
 * transparency log (C2SP tlog-tiles) whose entries are its decisions' `t` and digest; an archive
 * carries a checkpoint of it and the entries `0 … size − 1`. The audit holds the checkpoint to
 * the room (signed under its origin by a key that may sign the room's decisions, §3.5), the
 * entries to the checkpoint's root, and the archive's decisions to the entries: an entry of the
 * audited span whose decision the archive lacks is **withheld**; a decision the log lacks is
 * **unlogged**.
 */
import {
  type Checkpoint,
  ENTRY_LENGTH,
  encodeEntry,
  openCheckpoint,
  parseCheckpoint,
  parseNote,
  parseTlogProof,
  SIGNATURE_TYPE,
  type TreeHashing,
  type VerifierKey,
  verifierKey,
  verifyTlogProof,
} from '@wai-steering/tlog';
import { checkSigner, type RoomContext } from '@wai-steering/verifier';
import { bytesEqual, type CryptoBackend, getBackend, toHex } from '@wai-steering/wire';
import { ArchiveError } from './archive.js';
import { RootBuilder } from './internal/root.js';

/** An entry of the audited span whose decision the archive lacks. */
export interface WithheldEntry {
  readonly digest: string;
  /** Its `t`, µs, decimal. */
  readonly t: string;
  /** Its index in the log. */
  readonly index: number;
}

/** A decision of the archive that the log lacks. */
export interface UnloggedDecision {
  readonly digest: string;
  readonly t: string;
}

/** The `log` key of the audit's result. */
export interface LogResult {
  readonly origin: string;
  readonly size: number;
  /** The checkpoint's root, base64. */
  readonly root: string;
  readonly withheld: readonly WithheldEntry[];
  readonly unlogged: readonly UnloggedDecision[];
}

/**
 * The verifier keys under `origin` of the keys that may sign the room's decisions (§3.5, C6:
 * `checkSigner`): the authority, and each key of the key log head with `live/steer` that is not
 * revoked. A checkpoint of the room's decision log is signed by one of them (the steering key),
 * key name the origin, Ed25519 (signed-note type 0x01). Empty when the origin cannot be a key
 * name (it holds a space or a `+`).
 */
export function roomLogKeys(
  ctx: RoomContext,
  origin: string,
  backend?: CryptoBackend,
): VerifierKey[] {
  const b = backend ?? getBackend();
  const keys: Uint8Array[] = [ctx.room.authority];
  for (const entry of ctx.entries.values()) {
    if (bytesEqual(entry.key, ctx.room.authority)) continue;
    if (checkSigner(ctx, entry.key) === undefined) keys.push(entry.key);
  }
  if (checkSigner(ctx, ctx.room.authority) !== undefined) keys.shift();
  try {
    return keys.map((k) => verifierKey(origin, SIGNATURE_TYPE.ed25519, k, b));
  } catch {
    return [];
  }
}

/** A checkpoint of the room's log, opened: its fields and the key of the room that signed it. */
export interface RoomCheckpoint {
  readonly checkpoint: Checkpoint;
  /** The public key of the room's key that signed it. */
  readonly signer: Uint8Array;
  /** The text as given. */
  readonly text: string;
}

/**
 * Opens a checkpoint of the room's decision log: it reads (signed-note, tlog-checkpoint), its
 * origin is `origin` when one is expected, and a key that may sign the room's decisions signed it
 * under that origin. A result, the refusal a sentence naming what is wrong.
 */
export function openRoomCheckpoint(
  text: string,
  ctx: RoomContext,
  options: { readonly origin?: string; readonly backend?: CryptoBackend } = {},
): { ok: true; value: RoomCheckpoint } | { ok: false; message: string } {
  const note = parseNote(text);
  if (!note.ok)
    return { ok: false, message: `the checkpoint does not read (${note.refusal.message})` };
  const cp = parseCheckpoint(note.value.text);
  if (!cp.ok) return { ok: false, message: `the checkpoint does not read (${cp.refusal.message})` };
  const origin = cp.value.origin;
  if (options.origin !== undefined && origin !== options.origin) {
    return {
      ok: false,
      message: `the checkpoint is of the log ${JSON.stringify(origin)}, not ${JSON.stringify(options.origin)}`,
    };
  }
  const keys = roomLogKeys(ctx, origin, options.backend);
  const notSigned = {
    ok: false as const,
    message: `the checkpoint of ${origin} is not signed under its origin by a key that may sign the room's decisions`,
  };
  if (keys.length === 0) return notSigned;
  const opened = openCheckpoint(note.value, {
    origin,
    logKeys: keys,
    ...(options.backend === undefined ? {} : { backend: options.backend }),
  });
  if (!opened.ok) {
    return opened.refusal.reason === 'unverified'
      ? notSigned
      : { ok: false, message: `the checkpoint of ${origin}: ${opened.refusal.message}` };
  }
  const isKey = new Set(keys);
  const by = opened.value.verified.find((v) => isKey.has(v.key))!;
  return {
    ok: true,
    value: { checkpoint: opened.value.checkpoint, signer: by.key.publicKey, text },
  };
}

/** A decision's place in the log, proved (tlog-proof). */
export interface ProvedInclusion {
  readonly origin: string;
  readonly index: bigint;
  /** The size of the checkpoint the proof is against. */
  readonly size: bigint;
  /** The room's key that signed that checkpoint. */
  readonly signer: Uint8Array;
}

/**
 * Verifies a decision's tlog proof (`GET /log/proof/<digest>`): the entry of its `t` and digest,
 * the checkpoint signed under its origin by a key that may sign the room's decisions, the
 * inclusion proof against its root. A result, the refusal a sentence saying why.
 */
export function verifyDecisionProof(
  proofText: string,
  ctx: RoomContext,
  decision: { readonly t: bigint; readonly digest: Uint8Array },
  backend?: CryptoBackend,
): { ok: true; value: ProvedInclusion } | { ok: false; message: string } {
  const proof = parseTlogProof(proofText);
  if (!proof.ok) return { ok: false, message: `it does not read (${proof.refusal.message})` };
  const cp = parseCheckpoint(proof.value.note.text);
  if (!cp.ok) {
    return { ok: false, message: `its checkpoint does not read (${cp.refusal.message})` };
  }
  const origin = cp.value.origin;
  const opened = openRoomCheckpoint(proof.value.checkpoint, ctx, {
    ...(backend === undefined ? {} : { backend }),
  });
  if (!opened.ok) return { ok: false, message: opened.message };
  const verified = verifyTlogProof(proof.value, {
    entry: encodeEntry(decision),
    origin,
    logKeys: roomLogKeys(ctx, origin, backend),
    ...(backend === undefined ? {} : { backend }),
  });
  if (!verified.ok) return { ok: false, message: verified.refusal.message };
  return {
    ok: true,
    value: {
      origin,
      index: verified.value.index,
      size: verified.value.checkpoint.size,
      signer: opened.value.signer,
    },
  };
}

/** The span whose entries must all be in the archive: `from` ≤ `t` < `to`. */
export interface LogSpan {
  readonly from: bigint;
  readonly to: bigint;
}

const keyBytes = new Uint8Array(40);
const keyView = new DataView(keyBytes.buffer);

/** The 40 bytes of a decision's entry (its `t` u64 little-endian, its digest) as a string key. */
function entryKey(t: bigint, digest: Uint8Array): string {
  keyView.setBigUint64(0, t, true);
  keyBytes.set(digest, 8);
  return String.fromCharCode.apply(null, keyBytes as unknown as number[]);
}

function entryKeyOf(entry: Uint8Array): string {
  return String.fromCharCode.apply(null, entry as unknown as number[]);
}

function tOf(entry: Uint8Array): bigint {
  return new DataView(entry.buffer, entry.byteOffset, 8).getBigUint64(0, true);
}

/**
 * The log of an archive being checked. Give it the entries `0 … size − 1` ({@link ArchiveLog.add},
 * in chunks of whole entries), then {@link ArchiveLog.end} (their root against the checkpoint's);
 * then each decision of the archive ({@link ArchiveLog.see}); then {@link ArchiveLog.result}.
 *
 * Memory: the entries of the span (40 bytes and an index each), not the whole log. A decision
 * outside the span (an archive whose `span` does not cover its decisions) is looked for by
 * {@link ArchiveLog.rescan} over the entries once more.
 */
export class ArchiveLog {
  readonly origin: string;
  readonly size: bigint;
  readonly root: Uint8Array;
  private readonly backend: CryptoBackend;
  private readonly builder: RootBuilder;
  /** The span's entries by their 40 bytes: the index, or −1 − index once its decision is seen. */
  private readonly inSpan = new Map<string, number>();
  /** Decisions outside the span, by entry: its digest and `t` until found. */
  private readonly outside = new Map<string, UnloggedDecision>();
  private readonly unlogged: UnloggedDecision[] = [];
  private ended = false;

  /**
   * Opens the archive's checkpoint against the room; an {@link ArchiveError} (one line) when it
   * does not read, is of another origin than `origin` (archive.json's), or is not signed by a
   * key of the room.
   */
  constructor(
    checkpointText: string,
    ctx: RoomContext,
    private readonly span: LogSpan,
    options: {
      readonly origin?: string;
      readonly backend?: CryptoBackend;
      /** Batch hashing for the entries' root (`wasmTreeHashing` of `@wai-steering/tlog`). */
      readonly hashing?: TreeHashing;
    } = {},
  ) {
    this.backend = options.backend ?? getBackend();
    const opened = openRoomCheckpoint(checkpointText, ctx, options);
    if (!opened.ok) throw new ArchiveError(`checkpoint: ${opened.message}`);
    this.origin = opened.value.checkpoint.origin;
    this.size = opened.value.checkpoint.size;
    this.root = opened.value.checkpoint.root;
    this.builder = new RootBuilder(
      options.hashing === undefined ? this.backend : { ...this.backend, ...options.hashing },
    );
  }

  /** Entries in log order, `bytes` a whole number of 40-byte entries. */
  add(bytes: Uint8Array): void {
    if (bytes.length % ENTRY_LENGTH !== 0)
      throw new TypeError('ArchiveLog.add: give whole entries');
    const first = Number(this.builder.size);
    const entries: Uint8Array[] = new Array(bytes.length / ENTRY_LENGTH);
    for (let o = 0, i = 0; o < bytes.length; o += ENTRY_LENGTH, i++) {
      const entry = bytes.subarray(o, o + ENTRY_LENGTH);
      entries[i] = entry;
      const index = first + i;
      const t = tOf(entry);
      if (t >= this.span.from && t < this.span.to) {
        const key = entryKeyOf(entry);
        // A second entry of one decision keeps the first's index.
        if (!this.inSpan.has(key)) this.inSpan.set(key, index);
      }
    }
    this.builder.add(entries);
  }

  /**
   * After the last entry: their count and root must be the checkpoint's, or an
   * {@link ArchiveError} naming `file`.
   */
  end(file = 'log-entries.bin'): void {
    if (this.builder.size !== this.size) {
      throw new ArchiveError(
        `${file}: ${this.builder.size} entries, but the checkpoint is of ${this.size}`,
      );
    }
    if (!bytesEqual(this.builder.root(), this.root)) {
      throw new ArchiveError(
        `${file}: the root of its ${this.size} entries is not the checkpoint's (not the log the checkpoint signs)`,
      );
    }
    this.ended = true;
  }

  /** A decision of the archive, its digest and `t`. */
  see(digest: Uint8Array, t: bigint): void {
    const key = entryKey(t, digest);
    if (t >= this.span.from && t < this.span.to) {
      const index = this.inSpan.get(key);
      if (index !== undefined && index >= 0) this.inSpan.set(key, -1 - index);
      else if (index === undefined) this.unlogged.push({ digest: toHex(digest), t: t.toString() });
    } else if (!this.outside.has(key)) {
      this.outside.set(key, { digest: toHex(digest), t: t.toString() });
    }
  }

  /** Whether decisions outside the span wait for {@link ArchiveLog.rescan}. */
  get needsRescan(): boolean {
    return this.outside.size > 0;
  }

  /** The entries once more (chunks of whole entries), for the decisions outside the span. */
  rescan(bytes: Uint8Array): void {
    for (let o = 0; o < bytes.length && this.outside.size > 0; o += ENTRY_LENGTH) {
      this.outside.delete(entryKeyOf(bytes.subarray(o, o + ENTRY_LENGTH)));
    }
  }

  /** The `log` key of the result (withheld in the log's order, unlogged in the archive's). */
  result(): LogResult {
    if (!this.ended) throw new TypeError('ArchiveLog.result: end() was not called');
    const withheld: WithheldEntry[] = [];
    for (const [key, index] of this.inSpan) {
      if (index < 0) continue;
      const entry = Uint8Array.from(key, (c) => c.charCodeAt(0));
      withheld.push({ digest: toHex(entry.subarray(8)), t: tOf(entry).toString(), index });
    }
    return {
      origin: this.origin,
      size: Number(this.size),
      root: base64(this.root),
      withheld,
      unlogged: [...this.unlogged, ...this.outside.values()],
    };
  }
}

function base64(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}
