import {
  bytesEqual,
  CLASS_LABEL,
  type CryptoBackend,
  KEY_STATUS,
  type KeyLog,
  type KeyLogEntry,
  namesOrigin,
  Refusal,
  type Result,
  type Room,
  readKeyLog,
  readRoom,
  roomIdOf,
  toHex,
  verifyKeyLogSignature,
  verifyRoomSignature,
} from '@wai-steering/wire';

/** A room that passed §9.1 step 1: its descriptor, its id and, when it names an origin, the head. */
export interface RoomContext {
  readonly room: Room;
  readonly roomId: Uint8Array;
  /** The key log head; `undefined` when the room names no origin. */
  readonly keyLog: KeyLog | undefined;
  /** The head's entries by key (hex). */
  readonly entries: ReadonlyMap<string, KeyLogEntry>;
}

/** Options of the verifier's functions. */
export interface CheckOptions {
  readonly backend?: CryptoBackend;
}

const ROOM = { at: 'room' } as const;

/**
 * §9.1 step 1 and C6: the descriptor reads and verifies; when it names an origin, a head is
 * given, reads and verifies by its own `origin` (C9), is the descriptor's origin's, and lists the
 * authority with `live/room`, not revoked. When the room names no origin, a head given is not
 * read. A refusal is placed at `room`.
 */
export function openRoom(
  roomBytes: Uint8Array,
  keyLogBytes: Uint8Array | null | undefined,
  options: CheckOptions = {},
): Result<RoomContext> {
  const fail = (refusal: Refusal): Result<RoomContext> => ({
    ok: false,
    refusal: refusal.at(ROOM),
  });
  const read = readRoom(roomBytes);
  if (!read.ok) return fail(read.refusal);
  const room = read.value;
  const bad = verifyRoomSignature(room, options.backend);
  if (bad !== undefined) return fail(bad);
  const roomId = roomIdOf(room, options.backend);
  if (!namesOrigin(room)) {
    return { ok: true, value: { room, roomId, keyLog: undefined, entries: new Map() } };
  }
  // C6 step 2.
  if (keyLogBytes === null || keyLogBytes === undefined) {
    return fail(new Refusal('key_log_missing', { magic: 'WKL1' }));
  }
  const head = readKeyLog(keyLogBytes);
  if (!head.ok) return fail(head.refusal);
  const keyLog = head.value;
  const badHead = verifyKeyLogSignature(keyLog, options.backend);
  if (badHead !== undefined) return fail(badHead);
  if (!bytesEqual(keyLog.origin, room.origin)) {
    return fail(new Refusal('key_log_mismatch', { magic: 'WKL1', field: 'origin' }));
  }
  const entries = new Map<string, KeyLogEntry>();
  for (const entry of keyLog.entries) entries.set(toHex(entry.key), entry);
  const authority = entries.get(toHex(room.authority));
  // C9: an authority entry without `live/room` is `authority_not_listed` even if also revoked.
  if (authority === undefined || !authority.may_sign.includes('live/room')) {
    return fail(new Refusal('authority_not_listed', { magic: 'WKL1', field: 'entries' }));
  }
  if (authority.status === KEY_STATUS.revoked) {
    return fail(new Refusal('authority_revoked', { magic: 'WKL1', field: 'entries' }));
  }
  return { ok: true, value: { room, roomId, keyLog, entries } };
}

/**
 * §3.5, C6: whether `signer` may sign a policy or a decision of the room. For a decision,
 * `classes` are the classes it states with a figure, each of which the signer's entry must hold
 * as `energy/<label>` (when the room names an origin). `signer_revoked` for a listed key that is
 * revoked, whatever its `may_sign` (C9); `signer_not_authorised` otherwise.
 */
export function checkSigner(
  ctx: RoomContext,
  signer: Uint8Array,
  classes: Iterable<number> = [],
): Refusal | undefined {
  const isAuthority = bytesEqual(signer, ctx.room.authority);
  if (ctx.keyLog === undefined) {
    // A room that names no origin has no key log, and only its authority signs.
    return isAuthority ? undefined : new Refusal('signer_not_authorised', { field: 'signer' });
  }
  const entry = ctx.entries.get(toHex(signer));
  if (entry === undefined) return new Refusal('signer_not_authorised', { field: 'signer' });
  if (entry.status === KEY_STATUS.revoked)
    return new Refusal('signer_revoked', { field: 'signer' });
  if (!isAuthority && !entry.may_sign.includes('live/steer')) {
    return new Refusal('signer_not_authorised', { field: 'signer' });
  }
  for (const cls of classes) {
    if (!entry.may_sign.includes(`energy/${CLASS_LABEL[cls]}`)) {
      return new Refusal('signer_not_authorised', { field: 'signer' });
    }
  }
  return undefined;
}

/**
 * C5.4, C9: whether a per-hop record's `hop` may sign it: listed, not revoked, with `live/hop`
 * and, for a metered record, `energy/<label>` of its class; in that order. When the room names no
 * origin, only the room authority signs a record.
 */
export function checkHopAuthorised(
  ctx: RoomContext,
  record: { readonly hop: Uint8Array; readonly class: number },
): Refusal | undefined {
  if (ctx.keyLog === undefined) {
    return bytesEqual(record.hop, ctx.room.authority)
      ? undefined
      : new Refusal('hop_not_authorised', { magic: 'WMH1', field: 'hop' });
  }
  const entry = ctx.entries.get(toHex(record.hop));
  if (entry === undefined)
    return new Refusal('hop_not_authorised', { magic: 'WMH1', field: 'hop' });
  if (entry.status === KEY_STATUS.revoked) {
    return new Refusal('hop_revoked', { magic: 'WMH1', field: 'hop' });
  }
  if (!entry.may_sign.includes('live/hop')) {
    return new Refusal('hop_not_authorised', { magic: 'WMH1', field: 'hop' });
  }
  if (record.class !== 0 && !entry.may_sign.includes(`energy/${CLASS_LABEL[record.class]}`)) {
    return new Refusal('hop_not_authorised', { magic: 'WMH1', field: 'class' });
  }
  return undefined;
}
