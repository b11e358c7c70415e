// Companion C3 (and C9 "Key log": only `name` gives `room_invalid`).

import { sha256 } from '@noble/hashes/sha2.js';
import { describe, expect, it } from 'vitest';
import {
  encodeRoom,
  namesOrigin,
  type RoomFields,
  readRoom,
  roomIdOf,
  signRoom,
  verifyRoomSignature,
} from '../../src/index.js';
import {
  describeRoundTrip,
  expectRead,
  expectRefused,
  KEYS,
  raw,
  roomFields,
  roomLayout,
  roomWithoutOriginFields,
  signedRoom,
  smallOrderKey,
} from '../fixtures.js';

const R = roomFields();
/** C3: magic 4, version 1, authority 32, origin 32: the name's length is at 69, its bytes at 70. */
const NAME_AT = 70;

function refusesName(name: string): void {
  expectRefused(readRoom(raw.room({ ...R, name })), 'room_invalid', 'name', NAME_AT);
}

function reads(r: RoomFields): RoomFields {
  return expectRead(readRoom(raw.room(r)));
}

describe('C3 room_invalid: the name', () => {
  it('empty', () => refusesName(''));
  it('65 bytes', () => refusesName('n'.repeat(65)));
  it('valid: 1 byte and 64 bytes', () => {
    reads({ ...R, name: 'n' });
    reads({ ...R, name: 'n'.repeat(64) });
  });
  it('each non-printable byte (0x00 to 0x1f, 0x7f to 0xff)', () => {
    for (let b = 0; b < 256; b++) {
      if (b >= 0x20 && b <= 0x7e) continue;
      refusesName(`a${String.fromCharCode(b)}b`);
    }
  });
  it('valid: each printable byte 0x20 to 0x7e, a name of spaces', () => {
    for (let b = 0x20; b <= 0x7e; b++) reads({ ...R, name: String.fromCharCode(b) });
    reads({ ...R, name: '   ' });
  });
});

describe('C3: only the name gives room_invalid (C9)', () => {
  it('valid: a room with no origin (32 zero bytes)', () => {
    const r = reads(roomWithoutOriginFields());
    expect(namesOrigin(r)).toBe(false);
    expect(namesOrigin(reads(R))).toBe(true);
  });
  it('valid: an authority that is not a key (zeros, small order); origin = authority', () => {
    reads({ ...R, authority: new Uint8Array(32) });
    reads({ ...R, authority: smallOrderKey() });
    reads({ ...R, origin: R.authority });
    reads({
      ...R,
      authority: new Uint8Array(32).fill(0xff),
      origin: new Uint8Array(32).fill(0xff),
    });
  });
  it('an origin of one non-zero byte names an origin', () => {
    const origin = new Uint8Array(32);
    origin[31] = 1;
    expect(namesOrigin(reads({ ...R, origin }))).toBe(true);
  });
});

describe('C3: the room id', () => {
  for (const [what, fields] of [
    ['with an origin', R],
    ['without an origin', roomWithoutOriginFields()],
  ] as const) {
    it(`is SHA-256 of the descriptor before sig, ${what}`, () => {
      const bytes = signedRoom(fields);
      const room = expectRead(readRoom(bytes));
      const expected = sha256(bytes.subarray(0, bytes.length - 64));
      expect(Array.from(roomIdOf(room))).toEqual(Array.from(expected));
      expect(bytes.length).toBe(4 + 1 + 32 + 32 + 1 + fields.name.length + 64);
    });
  }
});

describeRoundTrip<RoomFields>({
  magic: 'WRD1',
  domainHex: '7761693a726f6f6d2d64657363726970746f7201', // "wai:room-descriptor" 0x01
  fields: R,
  secret: KEYS.authority.secret,
  signerOf: (r) => r.authority,
  withSigner: (r, authority) => ({ ...r, authority }),
  sign: signRoom,
  encode: encodeRoom,
  read: readRoom,
  layout: roomLayout,
  verify: verifyRoomSignature,
  tweak: (r) => ({ ...r, name: `${r.name}!` }),
  invalid: { fields: { ...R, name: '' }, reason: 'room_invalid' },
});

describeRoundTrip<RoomFields>({
  magic: 'WRD1',
  domainHex: '7761693a726f6f6d2d64657363726970746f7201',
  fields: roomWithoutOriginFields(),
  secret: KEYS.authority.secret,
  signerOf: (r) => r.authority,
  withSigner: (r, authority) => ({ ...r, authority }),
  sign: signRoom,
  encode: encodeRoom,
  read: readRoom,
  layout: roomLayout,
  verify: verifyRoomSignature,
  tweak: (r) => ({ ...r, origin: new Uint8Array(32).fill(1) }),
  invalid: { fields: { ...roomWithoutOriginFields(), name: '\n' }, reason: 'room_invalid' },
});
