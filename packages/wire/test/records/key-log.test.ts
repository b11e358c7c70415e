// Companion C4 (and C9 "Key log"): one control per rule of `key_log_invalid`.

import { describe, expect, it } from 'vitest';
import {
  encodeKeyLog,
  type KeyLogEntry,
  type KeyLogFields,
  readKeyLog,
  signKeyLog,
  verifyKeyLogSignature,
} from '../../src/index.js';
import {
  compareKeys,
  describeRoundTrip,
  expectRead,
  expectRefused,
  fakeDigest,
  KEYS,
  keyLogFields,
  keyLogLayout,
  offsetOf,
  raw,
} from '../fixtures.js';

const L = keyLogFields();

function refuses(l: KeyLogFields, field: string): void {
  expectRefused(
    readKeyLog(raw.keyLog(l)),
    'key_log_invalid',
    field,
    offsetOf(keyLogLayout(l), field),
  );
}

function reads(l: KeyLogFields): KeyLogFields {
  return expectRead(readKeyLog(raw.keyLog(l)));
}

function withEntry(i: number, patch: Partial<KeyLogEntry>, l: KeyLogFields = L): KeyLogFields {
  return { ...l, entries: l.entries.map((e, j) => (j === i ? { ...e, ...patch } : e)) };
}

const mayDo = (may_sign: string[]) => withEntry(1, { may_sign });

describe('WKL1: the fixture', () => {
  it('reads; its keys ascend', () => {
    const l = reads(L);
    expect(l.entries.length).toBe(3);
    for (let i = 1; i < L.entries.length; i++) {
      expect(compareKeys(L.entries[i - 1]!.key, L.entries[i]!.key)).toBeLessThan(0);
    }
  });
  it('C4 offsets: seq at 37, prev at 45, the entry count at 77', () => {
    const l = keyLogLayout(L);
    expect(offsetOf(l, 'seq')).toBe(37);
    expect(offsetOf(l, 'prev')).toBe(45);
    expect(offsetOf(l, 'entries')).toBe(77);
    expect(offsetOf(l, 'entries[0].key')).toBe(79);
  });
});

describe('C4 key_log_invalid: seq and prev', () => {
  it('seq 0 with a prev that is not zero', () => refuses({ ...L, seq: 0n }, 'prev'));
  it('seq 0 with a prev of one non-zero bit', () => {
    const prev = new Uint8Array(32);
    prev[31] = 0x80;
    refuses({ ...L, seq: 0n, prev }, 'prev');
  });
  it('seq above 0 with a zero prev', () => refuses({ ...L, prev: new Uint8Array(32) }, 'prev'));
  it('seq 2^64 − 1 with a zero prev', () =>
    refuses({ ...L, seq: 0xffff_ffff_ffff_ffffn, prev: new Uint8Array(32) }, 'prev'));
  it('valid: seq 0 with a zero prev; seq 1 with a prev', () => {
    reads({ ...L, seq: 0n, prev: new Uint8Array(32) });
    reads({ ...L, seq: 1n, prev: fakeDigest(5) });
  });
});

describe('C4 key_log_invalid: entries', () => {
  it('keys in descending order', () =>
    refuses({ ...L, entries: [L.entries[1]!, L.entries[0]!, L.entries[2]!] }, 'entries[1].key'));
  it('a key listed twice (C9)', () =>
    refuses({ ...L, entries: [L.entries[0]!, L.entries[0]!] }, 'entries[1].key'));
  it('keys that differ in the last byte, in the wrong order', () => {
    const a = new Uint8Array(32).fill(7);
    const b = a.slice();
    b[31] = 8;
    refuses(
      {
        ...L,
        entries: [
          { ...L.entries[0]!, key: b },
          { ...L.entries[0]!, key: a },
        ],
      },
      'entries[1].key',
    );
    reads({
      ...L,
      entries: [
        { ...L.entries[0]!, key: a },
        { ...L.entries[0]!, key: b },
      ],
    });
  });
  for (const status of [0, 3, 255]) {
    it(`status ${status}`, () => refuses(withEntry(2, { status }), 'entries[2].status'));
  }
  it('valid: status 1 and 2', () => {
    reads(withEntry(0, { status: 2 }));
    reads(withEntry(2, { status: 1 }));
  });
});

describe('C4 key_log_invalid: may_sign', () => {
  it('authorities in descending order', () =>
    refuses(mayDo(['live/steer', 'live/hop']), 'entries[1].may_sign[1]'));
  it('an authority twice', () =>
    refuses(mayDo(['live/hop', 'live/hop']), 'entries[1].may_sign[1]'));
  it('bytewise, not case-folded: "a" after "Z" is ascending, "Z" after "a" is not', () => {
    reads(mayDo(['Zeta', 'alpha']));
    refuses(mayDo(['alpha', 'Zeta']), 'entries[1].may_sign[1]');
  });
  it('an empty authority', () => refuses(mayDo(['']), 'entries[1].may_sign[0]'));
  it('an authority of 65 bytes', () => refuses(mayDo(['a'.repeat(65)]), 'entries[1].may_sign[0]'));
  it('valid: authorities of 1 and 64 bytes', () => {
    reads(mayDo(['a']));
    reads(mayDo(['a'.repeat(64)]));
  });
  const allowed = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/_-.';
  it('an authority with each of the other 190 bytes', () => {
    let n = 0;
    for (let b = 0; b < 256; b++) {
      const c = String.fromCharCode(b);
      if (allowed.includes(c)) continue;
      n++;
      refuses(mayDo(['energy/x', `live${c}hop`]), 'entries[1].may_sign[1]');
    }
    expect(n).toBe(256 - 66);
  });
  it('valid: an authority of each of the 66 characters', () => {
    for (const c of allowed) reads(mayDo([`x${c}`]));
  });
});

describe('C4: valid heads (C9)', () => {
  it('no entries', () => expect(reads({ ...L, entries: [] }).entries).toEqual([]));
  it('an entry with an empty may_sign', () => reads(mayDo([])));
  it('authorities not in C4 table', () => reads(mayDo(['custom/thing', 'live/unknown', 'zzz'])));
  it('an origin that is not a key, and a key that is the origin', () => {
    reads({ ...L, origin: new Uint8Array(32) });
    reads({ ...L, entries: [{ key: L.origin, status: 1, may_sign: [] }] });
  });
});

describeRoundTrip<KeyLogFields>({
  magic: 'WKL1',
  domainHex: '7761693a6b65792d6c6f6701', // "wai:key-log" 0x01
  fields: L,
  secret: KEYS.origin.secret,
  signerOf: (l) => l.origin,
  withSigner: (l, origin) => ({ ...l, origin }),
  sign: signKeyLog,
  encode: encodeKeyLog,
  read: readKeyLog,
  layout: keyLogLayout,
  verify: verifyKeyLogSignature,
  tweak: (l) => ({ ...l, seq: l.seq + 1n }),
  invalid: { fields: { ...L, seq: 0n }, reason: 'key_log_invalid' },
});

describeRoundTrip<KeyLogFields>({
  magic: 'WKL1',
  domainHex: '7761693a6b65792d6c6f6701',
  fields: { ...L, seq: 0n, prev: new Uint8Array(32), entries: [] },
  secret: KEYS.origin.secret,
  signerOf: (l) => l.origin,
  withSigner: (l, origin) => ({ ...l, origin }),
  sign: signKeyLog,
  encode: encodeKeyLog,
  read: readKeyLog,
  layout: keyLogLayout,
  verify: verifyKeyLogSignature,
  tweak: (l) => ({ ...l, seq: 1n, prev: fakeDigest(1) }),
  invalid: { fields: { ...L, seq: 0n }, reason: 'key_log_invalid' },
});
