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
import { TileHashReader } from '@wai-steering/tlog';
import { openRoom, type RoomContext } from '@wai-steering/verifier';
import { bytesEqual, toHex } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { UserError } from './errors.js';

/** A GET: the bytes, `null` for a 404, a {@link UserError} naming the URL for anything else. */
export async function getBytes(
  url: URL,
  options: { allow404?: boolean; fetch?: typeof fetch } = {},
): Promise<{ bytes: Uint8Array; headers: Headers } | null> {
  let res: Response;
  try {
    res = await (options.fetch ?? fetch)(url, { signal: AbortSignal.timeout(30_000) });
  } catch (e) {
    const cause = (e as { cause?: { code?: string } }).cause?.code;
    throw new UserError(`GET ${url}: ${cause ?? (e as Error).message}`);
  }
  if (options.allow404 === true && res.status === 404) {
    await res.arrayBuffer().catch(() => undefined);
    return null;
  }
  if (!res.ok) throw new UserError(`GET ${url}: HTTP ${res.status}`);
  try {
    return { bytes: new Uint8Array(await res.arrayBuffer()), headers: res.headers };
  } catch (e) {
    throw new UserError(`GET ${url}: ${(e as Error).message}`);
  }
}

/**
 * The room `roomId` as the server at `base` serves it: its descriptor and key log head, which
 * must verify and be that room.
 */
export async function fetchRoom(base: URL, roomId: Uint8Array): Promise<RoomContext> {
  const hex = toHex(roomId);
  const descriptor = await getBytes(new URL(`/rooms/${hex}/descriptor`, base));
  const keyLog = await getBytes(new URL(`/rooms/${hex}/key-log`, base), { allow404: true });
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
  const got = await getBytes(url, { allow404: true });
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

/** A reader of the tree of `cp` from the server's tiles (each checked against its root). */
export function tileReader(base: URL, cp: RoomCheckpoint): TileHashReader {
  return new TileHashReader(
    { size: cp.checkpoint.size, root: cp.checkpoint.root },
    async (_tile, path) => {
      const got = await getBytes(new URL(`/log/${path}`, base), { allow404: true });
      return got?.bytes;
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
    let error: unknown;
    try {
      error = (JSON.parse(body) as { error?: unknown }).error;
    } catch {
      error = undefined;
    }
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
