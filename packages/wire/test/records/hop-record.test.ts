// Companion C5 (live-metering): C5.3's rules in order, and `verifyHopRecord`.

import { describe, expect, it } from 'vitest';
import {
  CLASS_LABEL,
  encodeHopRecord,
  type HopRecordFields,
  hopRecordBodyOf,
  nobleBackend,
  readHopRecord,
  signHopRecord,
  type TrackEntry,
  verifyHopRecord,
} from '../../src/index.js';
import { nodeBackend } from '../../src/node.js';
import {
  describeRoundTrip,
  expectRead,
  expectRefused,
  hopLayout,
  hopRecordFields,
  KEYS,
  offsetOf,
  raw,
  roomId,
  signedHopRecord,
  smallOrderKey,
  withSig,
} from '../fixtures.js';

const H = hopRecordFields();

function refuses(
  h: HopRecordFields,
  reason: 'energy_invalid' | 'record_invalid',
  field: string,
): void {
  expectRefused(readHopRecord(raw.hop(h)), reason, field, offsetOf(hopLayout(h), field));
}

function reads(h: HopRecordFields): HopRecordFields {
  return expectRead(readHopRecord(raw.hop(h)));
}

function withTrack(i: number, patch: Partial<TrackEntry>, h: HopRecordFields = H): HopRecordFields {
  return { ...h, tracks: h.tracks.map((t, j) => (j === i ? { ...t, ...patch } : t)) };
}

describe('WMH1: the fixture and C5.1 offsets', () => {
  it('reads', () => expect(reads(H).tracks.length).toBe(3));
  it('class at 89, joules at 90, the track count at 170, the first track at 171', () => {
    const l = hopLayout(H);
    expect(offsetOf(l, 'start')).toBe(69);
    expect(offsetOf(l, 'end')).toBe(77);
    expect(offsetOf(l, 'class')).toBe(89);
    expect(offsetOf(l, 'joules')).toBe(90);
    expect(offsetOf(l, 'tracks')).toBe(170);
    expect(offsetOf(l, 'tracks[1].kind')).toBe(171 + 14 + 4);
  });
});

describe('C5.3 step 1: energy_invalid', () => {
  for (const cls of [1, 6, 255]) {
    it(`class ${cls}`, () => refuses({ ...H, class: cls }, 'energy_invalid', 'class'));
  }
  it('class 0 (unmetered) with joules 1', () =>
    refuses({ ...H, class: 0, joules: 1n }, 'energy_invalid', 'joules'));
  it('class 0 with joules 2^128 − 1', () =>
    refuses({ ...H, class: 0, joules: (1n << 128n) - 1n }, 'energy_invalid', 'joules'));
  it('valid: class 0 with joules 0; classes 2 to 5 with any joules, 0 too', () => {
    reads({ ...H, class: 0, joules: 0n });
    for (const cls of [2, 3, 4, 5]) {
      expect(CLASS_LABEL[cls]).toBeDefined();
      reads({ ...H, class: cls, joules: 0n });
      reads({ ...H, class: cls, joules: (1n << 128n) - 1n });
    }
  });
});

describe('C5.3 step 2: record_invalid', () => {
  it('end = start', () => refuses({ ...H, end: H.start }, 'record_invalid', 'end'));
  it('end < start', () => refuses({ ...H, end: H.start - 1n }, 'record_invalid', 'end'));
  it('end 0, start 2^64 − 1', () =>
    refuses({ ...H, start: 0xffff_ffff_ffff_ffffn, end: 0n }, 'record_invalid', 'end'));
  it('valid: end = start + 1; start 0', () => {
    reads({ ...H, end: H.start + 1n });
    reads({ ...H, start: 0n, end: 1n });
  });
  for (const kind of [0, 3, 255]) {
    it(`kind ${kind}`, () => refuses(withTrack(1, { kind }), 'record_invalid', 'tracks[1].kind'));
  }
  for (const direction of [0, 3, 255]) {
    it(`direction ${direction}`, () =>
      refuses(withTrack(2, { direction }), 'record_invalid', 'tracks[2].direction'));
  }
  it('two entries of one track and direction', () =>
    refuses(withTrack(1, { direction: 1 }), 'record_invalid', 'tracks[1].track'));
  it('two entries of one track and direction, apart, with other kinds', () =>
    refuses(
      withTrack(2, { track: 1, direction: 1, kind: 2 }),
      'record_invalid',
      'tracks[2].track',
    ));
  it('valid: one track in both directions; two tracks in one direction; no tracks', () => {
    reads(withTrack(2, { track: 2, direction: 2 }));
    reads({
      ...H,
      tracks: [
        { track: 0, kind: 1, direction: 2, bytes: 1n },
        { track: 1, kind: 1, direction: 2, bytes: 1n },
        { track: 0x8000_0000, kind: 1, direction: 2, bytes: 1n },
        { track: 0, kind: 2, direction: 1, bytes: 1n },
      ],
    });
    reads({ ...H, tracks: [] });
  });
});

describe('C5.3: energy_invalid before record_invalid', () => {
  it('a bad class and end = start: energy_invalid', () =>
    refuses({ ...H, class: 1, end: H.start }, 'energy_invalid', 'class'));
  it('joules with the marker and a bad track: energy_invalid', () =>
    refuses(withTrack(0, { kind: 0 }, { ...H, class: 0, joules: 5n }), 'energy_invalid', 'joules'));
});

describe('C5.3 steps 3 and 4: verifyHopRecord', () => {
  const bytes = signedHopRecord();
  const record = expectRead(readHopRecord(bytes));
  const room = roomId();

  it('valid: the signed record of its room verifies with both backends', () => {
    expect(verifyHopRecord(record, room)).toBeUndefined();
    expect(verifyHopRecord(record, room, nobleBackend)).toBeUndefined();
    expect(verifyHopRecord(record, room, nodeBackend)).toBeUndefined();
  });
  it('wrong_room for a record of another room', () => {
    const other = room.slice();
    other[0]! ^= 1;
    const r = verifyHopRecord(record, other);
    expect(r?.reason).toBe('wrong_room');
    expect(r?.where.field).toBe('room');
    expect(r?.where.offset).toBe(5);
  });
  it('wrong_room before the signature: another room and a bad signature', () => {
    const flipped = bytes.slice();
    flipped[bytes.length - 1]! ^= 0x01;
    const bad = expectRead(readHopRecord(flipped));
    expect(verifyHopRecord(bad, room)?.reason).toBe('bad_signature');
    expect(verifyHopRecord(bad, new Uint8Array(32))?.reason).toBe('wrong_room');
  });
  it('wrong_room before the key: another room and a small-order hop key', () => {
    const h = { ...H, hop: smallOrderKey() };
    const rec = expectRead(readHopRecord(raw.hop(h)));
    expect(verifyHopRecord(rec, room)?.reason).toBe('bad_key');
    expect(verifyHopRecord(rec, fakeRoom())?.reason).toBe('wrong_room');
  });
  it('bad_signature for each flipped sig byte (first, in R, in S, last)', () => {
    for (const at of [0, 1, 31, 32, 33, 62, 63]) {
      const flipped = bytes.slice();
      flipped[bytes.length - 64 + at]! ^= 0x40;
      const rec = expectRead(readHopRecord(flipped));
      for (const backend of [nobleBackend, nodeBackend]) {
        const r = verifyHopRecord(rec, room, backend);
        expect(r?.reason).toBe('bad_signature');
        expect(r?.where.field).toBe('sig');
      }
    }
  });
  it('bad_key for a small-order hop key (with any signature)', () => {
    const rec = expectRead(
      readHopRecord(withSig(encodeHopRecord({ ...H, hop: smallOrderKey() }), bytes.subarray(-64))),
    );
    for (const backend of [nobleBackend, nodeBackend]) {
      const r = verifyHopRecord(rec, room, backend);
      expect(r?.reason).toBe('bad_key');
      expect(r?.where.field).toBe('key');
    }
  });
  it('a record signed by another hop key than its hop is bad_signature', () => {
    const signedByB = signHopRecord({ ...H, hop: KEYS.hopB1.public }, KEYS.hopB1.secret);
    const rec = expectRead(
      readHopRecord(withSig(encodeHopRecord(H), signedByB.subarray(signedByB.length - 64))),
    );
    expect(verifyHopRecord(rec, room)?.reason).toBe('bad_signature');
  });
  it('an unmetered record signs and verifies', () => {
    const b = signedHopRecord({ ...H, class: 0, joules: 0n });
    expect(verifyHopRecord(expectRead(readHopRecord(b)), room)).toBeUndefined();
  });
});

describe('C9: hopRecordBodyOf finds the bytes a named digest covers', () => {
  const bytes = signedHopRecord();
  const body = bytes.subarray(0, 171 + 14 * H.tracks.length);
  it('of a record, its body', () => expect(hopRecordBodyOf(bytes)).toEqual(body));
  it('of a record cut inside sig, or with bytes left over, its body too', () => {
    expect(hopRecordBodyOf(bytes.subarray(0, bytes.length - 10))).toEqual(body);
    expect(hopRecordBodyOf(withSig(bytes, new Uint8Array(3)))).toEqual(body);
  });
  it('of a blob too short to reach the end of its tracks, none', () => {
    expect(hopRecordBodyOf(bytes.subarray(0, 170))).toBeUndefined();
    expect(hopRecordBodyOf(body.subarray(0, body.length - 1))).toBeUndefined();
  });
  it('whatever its magic or version say', () => {
    const b = bytes.slice();
    b[0] = 0x58;
    b[4] = 9;
    expect(hopRecordBodyOf(b)?.length).toBe(body.length);
  });
});

function fakeRoom(): Uint8Array {
  return new Uint8Array(32).fill(0x5a);
}

describeRoundTrip<HopRecordFields>({
  magic: 'WMH1',
  domainHex: '7761693a6d65746572696e672d686f7001', // "wai:metering-hop" 0x01
  fields: H,
  secret: KEYS.hopA1.secret,
  signerOf: (h) => h.hop,
  withSigner: (h, hop) => ({ ...h, hop }),
  sign: signHopRecord,
  encode: encodeHopRecord,
  read: readHopRecord,
  layout: hopLayout,
  verify: (rec, backend) => verifyHopRecord(rec, rec.room, backend),
  tweak: (h) => ({ ...h, sessions: h.sessions + 1 }),
  invalid: { fields: { ...H, class: 6 }, reason: 'energy_invalid' },
});
