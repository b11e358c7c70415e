import { type ByteReader, ByteWriter } from '../internal/bytes.js';
import { isRoomName } from '../internal/chars.js';
import { readRecord, recordSigner, type Signed, signatureVerifier } from '../internal/record.js';
import type { Result } from '../refusal.js';

/** C3: the room descriptor `WRD1`, every field but `magic`, `version` and `sig`. */
export interface RoomFields {
  readonly authority: Uint8Array;
  /** The origin's key; 32 zero bytes when the room names none. */
  readonly origin: Uint8Array;
  readonly name: string;
}

/** A room descriptor as read. */
export type Room = Signed<RoomFields>;

function readFields(r: ByteReader): RoomFields {
  const authority = r.take(32, 'authority');
  const origin = r.take(32, 'origin');
  const name = r.text(r.u8('name'), 'name');
  return { authority, origin, name };
}

function checkRules(room: RoomFields, r: ByteReader): void {
  // C3: `name` is 1 to 64 bytes of printable ASCII; only `name` gives `room_invalid` (C9).
  if (!isRoomName(room.name)) throw r.rule('room_invalid', 'name', 'not 1 to 64 printable bytes');
}

/** Whether the room names an origin (C3: 32 zero bytes name none). */
export function namesOrigin(room: RoomFields): boolean {
  for (let i = 0; i < 32; i++) if (room.origin[i] !== 0) return true;
  return false;
}

/** C3: reads a room descriptor and checks its rules (not its signature). */
export function readRoom(bytes: Uint8Array): Result<Room> {
  return readRecord(bytes, 'WRD1', readFields, checkRules);
}

/** C3: the bytes of a room descriptor before `sig`. */
export function encodeRoom(room: RoomFields): Uint8Array {
  const w = new ByteWriter(160);
  w.text('WRD1', 'magic').u8(1, 'version');
  w.raw(room.authority, 'authority', 32).raw(room.origin, 'origin', 32);
  w.lengthText(room.name, 1, 'name');
  return w.finish();
}

/** C3: the signed descriptor's bytes, signed by the authority's `secretKey`. */
export const signRoom = recordSigner(
  'WRD1',
  encodeRoom,
  readRoom,
  (room: RoomFields) => room.authority,
);

/** C3, C2: strict verification of a descriptor's signature by its `authority`. */
export const verifyRoomSignature = signatureVerifier('WRD1', (room: Room) => room.authority);
