/**
 * The decision log's clients over HTTP (docs/audit.md, *The log*): the room pinned by its id
 * (its descriptor and key log head verify, §9.1 step 1), the checkpoints it may sign (the
 * authority's, and those of the key log's `live/steer` keys not revoked, §3.5), a decision's place
 * in the log (`GET /log/proof/<digest>`, tlog-proof), and a tree read from the tiles.
 */
import {
  openRoomCheckpoint,
  type RoomCheckpoint,
  verifyDecisionProof,
} from '@wai-steering/auditor';
import { readStrictJson } from '@wai-steering/config-text';
import { TileHashReader, TlogRefusal } from '@wai-steering/tlog';
import { openRoom, type RoomContext } from '@wai-steering/verifier';
import { bytesEqual, toHex } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { UserError } from './errors.js';

/** The most bytes of a checkpoint (its note and signature lines). */
export const MAX_CHECKPOINT = 1 << 20;
/** The largest room descriptor (`WRD1`, companion C3): a name of 64 bytes. */
export const MAX_DESCRIPTOR = 4 + 1 + 32 + 32 + 1 + 64 + 64;
/** The most bytes of a key log head (`WKL1`): as an archive's `key-log.wkl` (2^24). */
export const MAX_KEY_LOG = 1 << 24;
/** A hash of a tile (tlog-tiles: a full tile is 256 hashes, 8 192 bytes). */
const HASH_SIZE = 32;
/**
 * An entry of this log and its length prefix: tlog-tiles allows entries of up to 65 535 bytes
 * (big-endian uint16 lengths), the decision log's are 40 bytes (`t`, digest).
 */
const BUNDLED_ENTRY = 2 + 40;

/** A body over its bound: what a log sent that no legal answer is. */
export class OversizeError extends UserError {
  constructor(url: URL, max: number, what: string) {
    super(`GET ${url}: a body of more than ${max} bytes, larger than ${what} can be`);
    this.name = 'OversizeError';
  }
}

/**
 * Reads a body of at most `max` bytes: its declared length checked first, then counted as it
 * comes; past `max` the rest is not read (the stream cancelled) and {@link OversizeError} thrown.
 */
async function readCapped(res: Response, url: URL, max: number, what: string): Promise<Uint8Array> {
  const declared = Number(res.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > max) {
    await res.body?.cancel().catch(() => undefined);
    throw new OversizeError(url, max, what);
  }
  if (res.body === null) return new Uint8Array(0);
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let n = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    n += value.length;
    if (n > max) {
      await reader.cancel().catch(() => undefined);
      throw new OversizeError(url, max, what);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(n);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/**
 * A GET: the bytes (at most `max`, {@link OversizeError} past it), `null` for a 404, a
 * {@link UserError} naming the URL for anything else.
 */
export async function getBytes(
  url: URL,
  options: { allow404?: boolean; fetch?: typeof fetch; max: number; what: string },
): Promise<{ bytes: Uint8Array; headers: Headers } | null> {
  let res: Response;
  try {
    res = await (options.fetch ?? fetch)(url, { signal: AbortSignal.timeout(30_000) });
  } catch (e) {
    const cause = (e as { cause?: { code?: string } }).cause?.code;
    throw new UserError(`GET ${url}: ${cause ?? (e as Error).message}`);
  }
  if (options.allow404 === true && res.status === 404) {
    await res.body?.cancel().catch(() => undefined);
    return null;
  }
  if (!res.ok) {
    await res.body?.cancel().catch(() => undefined);
    throw new UserError(`GET ${url}: HTTP ${res.status}`);
  }
  try {
    return { bytes: await readCapped(res, url, options.max, options.what), headers: res.headers };
  } catch (e) {
    if (e instanceof UserError) throw e;
    throw new UserError(`GET ${url}: ${(e as Error).message}`);
  }
}

/**
 * The room `roomId` as the server at `base` serves it: its descriptor and key log head, which
 * must verify and be that room.
 */
export async function fetchRoom(base: URL, roomId: Uint8Array): Promise<RoomContext> {
  const hex = toHex(roomId);
  const descriptor = await getBytes(new URL(`/rooms/${hex}/descriptor`, base), {
    max: MAX_DESCRIPTOR,
    what: 'a room descriptor',
  });
  const keyLog = await getBytes(new URL(`/rooms/${hex}/key-log`, base), {
    allow404: true,
    max: MAX_KEY_LOG,
    what: 'a key log head',
  });
  const opened = openRoom(descriptor!.bytes, keyLog?.bytes ?? null, { backend: nodeBackend });
  if (!opened.ok) {
    throw new UserError(
      `${base.origin}: the room ${hex} does not verify (${opened.refusal.reason})`,
    );
  }
  if (!bytesEqual(opened.value.roomId, roomId)) {
    throw new UserError(
      `${base.origin} serves the room ${toHex(opened.value.roomId)}, not --room-id ${hex}`,
    );
  }
  return opened.value;
}

/** The server's latest checkpoint, opened against the room; `undefined` before the first. */
export async function fetchCheckpoint(
  base: URL,
  ctx: RoomContext,
  origin?: string,
): Promise<RoomCheckpoint | undefined> {
  const url = new URL('/log/checkpoint', base);
  const got = await getBytes(url, { allow404: true, max: MAX_CHECKPOINT, what: 'a checkpoint' });
  if (got === null) return undefined;
  const text = new TextDecoder().decode(got.bytes);
  const opened = openRoomCheckpoint(text, ctx, {
    backend: nodeBackend,
    ...(origin === undefined ? {} : { origin }),
  });
  if (!opened.ok) throw new LogError(`GET ${url}: ${opened.message}`, text);
  return opened.value;
}

/** A log that misbehaves: what it served does not verify (its text kept, to be shown). */
export class LogError extends Error {
  constructor(
    message: string,
    readonly served?: string,
  ) {
    super(message);
    this.name = 'LogError';
  }
}

/**
 * A reader of the tree of `cp` from the server's tiles (each checked against its root), each
 * body within its largest legal size: a tile of `w` hashes is 32 · `w` bytes (8 192 full), an
 * entry bundle of `w` entries of this log 42 · `w`.
 */
export function tileReader(base: URL, cp: RoomCheckpoint): TileHashReader {
  return new TileHashReader(
    { size: cp.checkpoint.size, root: cp.checkpoint.root },
    async (tile, path) => {
      const bundle = tile.level === 'entries';
      try {
        const got = await getBytes(new URL(`/log/${path}`, base), {
          allow404: true,
          max: tile.width * (bundle ? BUNDLED_ENTRY : HASH_SIZE),
          what: bundle ? `an entry bundle of ${tile.width}` : `a tile of ${tile.width} hashes`,
        });
        return got?.bytes;
      } catch (e) {
        // Larger than the tile can be: not the tile, as one of the wrong length is not.
        if (e instanceof OversizeError) {
          throw new TlogRefusal(
            'bad_tile',
            { what: bundle ? 'entry bundle' : 'tile', path },
            e.message,
          );
        }
        throw e;
      }
    },
    { backend: nodeBackend },
  );
}

/** Where a decision is in the log. */
export type Inclusion =
  | {
      readonly kind: 'logged';
      readonly origin: string;
      readonly index: bigint;
      readonly size: bigint;
      /** The key of the room that signed the checkpoint (hex). */
      readonly signer: string;
    }
  | { readonly kind: 'not_yet'; readonly retryAfterS: number | undefined }
  | { readonly kind: 'not_found' }
  /** The server's proof does not verify: a finding, not a fault of the network. */
  | { readonly kind: 'bad_proof'; readonly why: string };

/**
 * A decision's place in the log: `GET /log/proof/<digest>` (tlog-proof), verified: the entry of
 * its `t` and digest, the checkpoint signed under its origin by a key of the room, the inclusion
 * proof against its root.
 */
export async function fetchInclusion(
  base: URL,
  ctx: RoomContext,
  decision: { readonly t: bigint; readonly digest: Uint8Array },
): Promise<Inclusion> {
  const url = new URL(`/log/proof/${toHex(decision.digest)}`, base);
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(30_000) });
  } catch (e) {
    const cause = (e as { cause?: { code?: string } }).cause?.code;
    throw new UserError(`GET ${url}: ${cause ?? (e as Error).message}`);
  }
  const body = await res.text();
  if (res.status === 404) {
    const read = readStrictJson(body);
    const error =
      read.ok && read.value !== null && typeof read.value === 'object'
        ? (read.value as { error?: unknown }).error
        : undefined;
    if (error === 'not_logged_yet') {
      const after = Number(res.headers.get('retry-after'));
      return {
        kind: 'not_yet',
        retryAfterS: Number.isFinite(after) && after > 0 ? after : undefined,
      };
    }
    return { kind: 'not_found' };
  }
  if (!res.ok) throw new UserError(`GET ${url}: HTTP ${res.status}`);
  const verified = verifyDecisionProof(body, ctx, decision, nodeBackend);
  if (!verified.ok) return { kind: 'bad_proof', why: verified.message };
  const v = verified.value;
  return {
    kind: 'logged',
    origin: v.origin,
    index: v.index,
    size: v.size,
    signer: toHex(v.signer),
  };
}
