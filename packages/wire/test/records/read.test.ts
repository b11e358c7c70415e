// Companion C1 (and C9 "Reading"), for every record kind: how a record is read, before any of
// its rules. Also: callers' misuse is a TypeError, never a Refusal; and `isRefusal` across copies.

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import {
  encodeDecision,
  encodeHopRecord,
  encodeKeyLog,
  encodePolicy,
  encodeRoom,
  isReason,
  isRefusal,
  type Magic,
  REASONS,
  type Reason,
  Refusal,
  type Result,
  readDecision,
  readKeyLog,
  readPolicy,
  signHopRecord,
  signPolicy,
  signRoom,
  unwrap,
} from '../../src/index.js';
import {
  cutAt,
  decisionFields,
  decisionLayout,
  expectRead,
  expectRefused,
  hopLayout,
  hopRecordFields,
  KEYS,
  keyLogFields,
  keyLogLayout,
  MAGICS,
  offsetOf,
  policyFields,
  policyLayout,
  READERS,
  raw,
  roomFields,
  roomLayout,
  type Segment,
  signedDecision,
  signedHopRecord,
  signedKeyLog,
  signedPolicy,
  signedRoom,
  withSig,
  withSigSegment,
} from '../fixtures.js';

interface Kind {
  readonly magic: Magic;
  readonly read: (bytes: Uint8Array) => Result<unknown>;
  /** A valid signed record. */
  readonly bytes: Uint8Array;
  /** Its layout, `sig` included. */
  readonly layout: Segment[];
  /** A record that reads completely but breaks one of its rules (zero sig). */
  readonly invalid: Uint8Array;
  /** The reason of that rule. */
  readonly invalidReason: Reason;
}

const KINDS: readonly Kind[] = [
  {
    magic: 'WSP1',
    read: READERS.WSP1,
    bytes: signedPolicy(),
    layout: withSigSegment(policyLayout(policyFields())),
    invalid: raw.policy(policyFields({ basis: 0 })),
    invalidReason: 'policy_invalid',
  },
  {
    magic: 'WSD1',
    read: READERS.WSD1,
    bytes: signedDecision(),
    layout: withSigSegment(decisionLayout(decisionFields())),
    invalid: raw.decision(decisionFields({ protocol: 0 })),
    invalidReason: 'decision_invalid',
  },
  {
    magic: 'WRD1',
    read: READERS.WRD1,
    bytes: signedRoom(),
    layout: withSigSegment(roomLayout(roomFields())),
    invalid: raw.room(roomFields({ name: '' })),
    invalidReason: 'room_invalid',
  },
  {
    magic: 'WKL1',
    read: READERS.WKL1,
    bytes: signedKeyLog(),
    layout: withSigSegment(keyLogLayout(keyLogFields())),
    invalid: raw.keyLog(keyLogFields({ seq: 0n })),
    invalidReason: 'key_log_invalid',
  },
  {
    magic: 'WMH1',
    read: READERS.WMH1,
    bytes: signedHopRecord(),
    layout: withSigSegment(hopLayout(hopRecordFields())),
    invalid: raw.hop(hopRecordFields({ class: 1 })),
    invalidReason: 'energy_invalid',
  },
];

function ascii(s: string): Uint8Array {
  return Uint8Array.from(s, (c) => c.charCodeAt(0));
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

for (const k of KINDS) {
  describe(`C1: reading ${k.magic}`, () => {
    const len = k.bytes.length;

    it('the valid record reads; its layout has its length', () => {
      expectRead(k.read(k.bytes));
      expect(k.layout.reduce((n, s) => n + s.bytes.length, 0)).toBe(len);
    });

    it('0 to 3 bytes are truncated whatever they hold (C9)', () => {
      const contents = [
        new Uint8Array(0),
        ascii(k.magic.slice(0, 1)),
        ascii(k.magic.slice(0, 2)),
        ascii(k.magic.slice(0, 3)),
        ascii('XYZ'),
        new Uint8Array([0xff, 0xff, 0xff]),
        new Uint8Array([0, 0]),
      ];
      for (let b = 0; b < 256; b++) contents.push(new Uint8Array([b]));
      for (const c of contents) expectRefused(k.read(c), 'truncated', 'magic', 0);
    });

    it('4 bytes or more whose first 4 are not the magic are malformed', () => {
      for (const other of MAGICS) {
        if (other === k.magic) continue;
        const kOther = KINDS.find((x) => x.magic === other)!;
        expectRefused(k.read(kOther.bytes), 'malformed', 'magic', 0);
        expectRefused(k.read(ascii(other)), 'malformed', 'magic', 0);
      }
      expectRefused(k.read(ascii(k.magic.toLowerCase())), 'malformed', 'magic', 0);
      expectRefused(k.read(new Uint8Array(4)), 'malformed', 'magic', 0);
      for (let i = 0; i < 4; i++) {
        const b = k.bytes.slice();
        b[i]! ^= 0x20;
        expectRefused(k.read(b), 'malformed', 'magic', 0);
        expectRefused(k.read(b.subarray(0, 4)), 'malformed', 'magic', 0);
      }
    });

    it('the magic alone, with no version byte, is truncated at version', () => {
      expectRefused(k.read(ascii(k.magic)), 'truncated', 'version', 4);
    });

    it('a version other than 1 is unknown_version, before anything after it', () => {
      for (const v of [0, 2, 0x81, 255]) {
        const b = k.bytes.slice();
        b[4] = v;
        expectRefused(k.read(b), 'unknown_version', 'version', 4);
        expectRefused(k.read(b.subarray(0, 5)), 'unknown_version', 'version', 4);
        expectRefused(k.read(withSig(b, new Uint8Array(9))), 'unknown_version', 'version', 4);
      }
    });

    it(`each cut, 0 to ${len - 1} bytes, is truncated at the field it cuts`, () => {
      for (let cut = 0; cut < len; cut++) {
        const field = cutAt(k.layout, cut);
        expectRefused(k.read(k.bytes.subarray(0, cut)), 'truncated', field.name, field.offset);
      }
    });

    it('a cut is truncated even when the bytes after the view are there', () => {
      // A view onto the complete record: a reader must not read past the bytes it was given.
      const view = k.bytes.subarray(0, len - 1);
      expect(view.buffer.byteLength).toBeGreaterThanOrEqual(len);
      expectRefused(k.read(view), 'truncated', 'sig', len - 64);
    });

    it('a view that does not begin at offset 0 of its buffer reads', () => {
      const padded = concat(new Uint8Array(13).fill(0xee), k.bytes, new Uint8Array(7));
      expectRead(k.read(padded.subarray(13, 13 + len)));
    });

    it('bytes left over after sig are malformed (sig is where the fields end, C9)', () => {
      for (const extra of [1, 63, 64, 65, len]) {
        const b = withSig(k.bytes, new Uint8Array(extra));
        expectRefused(k.read(b), 'malformed', 'sig', len);
      }
      expectRefused(k.read(concat(k.bytes, k.bytes)), 'malformed', 'sig', len);
    });

    it(`rules only after a complete read: the invalid record complete is ${k.invalidReason}`, () => {
      expectRefused(k.read(k.invalid), k.invalidReason);
    });

    it('rules only after a complete read: cut short it is truncated, longer malformed', () => {
      const n = k.invalid.length;
      expectRefused(k.read(k.invalid.subarray(0, n - 1)), 'truncated', 'sig', n - 64);
      expectRefused(k.read(k.invalid.subarray(0, 5)), 'truncated');
      expectRefused(k.read(withSig(k.invalid, new Uint8Array(1))), 'malformed', 'sig', n);
      const v = k.invalid.slice();
      v[4] = 2;
      expectRefused(k.read(v), 'unknown_version', 'version', 4);
    });

    it('reading does not change the bytes given', () => {
      const b = k.bytes.slice();
      k.read(b);
      k.read(b.subarray(0, 40));
      expect(b).toEqual(k.bytes);
    });
  });
}

describe('C1/C9: a count that declares more than the bytes hold is truncated', () => {
  it('WKL1: an entry count of 65535 over no entries', () => {
    const l = keyLogFields({ entries: [] });
    const b = raw.keyLog(l); // the 64 zero bytes of sig read as entry 0: key, status, no may_sign
    b[77] = 0xff;
    b[78] = 0xff;
    // entry 0 takes 32 + 1 + 1 bytes of the 64; entry 1's key needs 32 of the 30 left.
    expectRefused(readKeyLog(b), 'truncated', 'entries[1].key', 79 + 34);
  });
  it('WSP1: one pathway more than written', () => {
    const p = policyFields();
    const b = raw.policy(p);
    const at = offsetOf(policyLayout(p), 'pathways');
    b[at]! += 1;
    expectRefused(readPolicy(b), 'truncated');
  });
  it('WSP1: 255 tiers', () => {
    const p = policyFields();
    const b = raw.policy(p);
    b[offsetOf(policyLayout(p), 'tiers')] = 255;
    expectRefused(readPolicy(b), 'truncated');
  });
  it('WSP1: a URI length of 65535', () => {
    const p = policyFields();
    const b = raw.policy(p);
    const at = offsetOf(policyLayout(p), 'server_uri') - 2;
    b[at] = 0xff;
    b[at + 1] = 0xff;
    expectRefused(readPolicy(b), 'truncated', 'server_uri', at + 2);
  });
  it('WSD1: a priority count of 255', () => {
    const d = decisionFields();
    const b = raw.decision(d);
    const at = offsetOf(decisionLayout(d), 'priority');
    b[at] = 255;
    // the 3 written indices and the 64 bytes of sig are read as 67 indices; the 68th is cut.
    expectRefused(readDecision(b), 'truncated', 'priority[67]', b.length);
  });
  it('WMH1: a track count of 255', () => {
    const b = raw.hop(hopRecordFields());
    b[170] = 255;
    expectRefused(READERS.WMH1(b), 'truncated');
  });
});

describe('C1: a reader never allocates more than the bytes could describe', () => {
  // No duration is asserted: a reader that allocated what these claims say (millions of
  // entries) would exhaust memory or run past the test's timeout, a thousand times over.
  /** The header of a policy up to its pathway count, set to `count`, padded to `size` bytes. */
  function hostilePolicy(count: number, size: number, fill: number): Uint8Array {
    const p = policyFields();
    const at = offsetOf(policyLayout(p), 'pathways');
    const b = new Uint8Array(size).fill(fill);
    b.set(encodePolicy(p).subarray(0, at));
    b[at] = count;
    return b;
  }
  it('a policy claiming 255 pathways in 300 bytes is truncated, quickly', () => {
    for (const fill of [0, 0xff, 0x01]) {
      const b = hostilePolicy(255, 300, fill);
      for (let i = 0; i < 1000; i++) expectRefused(readPolicy(b), 'truncated');
    }
  });
  it('a key log claiming 65535 entries, each with 255 authorities of 255 bytes, in 300 bytes', () => {
    const b = new Uint8Array(300).fill(0xff);
    b.set(encodeKeyLog(keyLogFields({ entries: [] })).subarray(0, 77));
    for (let i = 0; i < 1000; i++) expectRefused(readKeyLog(b), 'truncated');
  });
  it('a decision claiming 255 pathways of 255 digests each, in 400 bytes', () => {
    const d = decisionFields();
    const at = offsetOf(decisionLayout(d), 'pathways');
    const b = new Uint8Array(400).fill(0xff);
    b.set(encodeDecision(d).subarray(0, at));
    b[at] = 255;
    for (let i = 0; i < 1000; i++) expectRefused(readDecision(b), 'truncated');
  });
});

describe('caller misuse is a TypeError, never a Refusal', () => {
  function throwsTypeError(f: () => unknown): void {
    let thrown: unknown;
    try {
      f();
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(TypeError);
    expect(isRefusal(thrown)).toBe(false);
  }
  const str = (s: string) => s as unknown as Uint8Array;
  const big = (n: number) => n as unknown as bigint;

  it('readers given anything but a Uint8Array', () => {
    const notBytes: unknown[] = [
      'WSP1',
      42,
      null,
      undefined,
      {},
      [0x57, 0x53, 0x50, 0x31],
      new ArrayBuffer(8),
      new DataView(new ArrayBuffer(8)),
      new Uint16Array(4),
      new Int8Array(8),
    ];
    for (const magic of MAGICS) {
      for (const x of notBytes) throwsTypeError(() => READERS[magic](x as Uint8Array));
    }
  });
  it('readers take a Buffer (a Uint8Array)', () => {
    expectRead(readPolicy(Buffer.from(signedPolicy())));
  });
  it('writers given a string where bytes belong', () => {
    const hex = 'aa'.repeat(32);
    throwsTypeError(() => encodeRoom({ ...roomFields(), authority: str(hex) }));
    throwsTypeError(() => encodePolicy(policyFields({ room: str(hex) })));
    throwsTypeError(() => encodeDecision(decisionFields({ session: str('s'.repeat(16)) })));
    throwsTypeError(() => encodeKeyLog(keyLogFields({ prev: str(hex) })));
    throwsTypeError(() => encodeHopRecord(hopRecordFields({ hop: str(hex) })));
    throwsTypeError(() =>
      encodeKeyLog(keyLogFields({ entries: [{ key: str(hex), status: 1, may_sign: [] }] })),
    );
    throwsTypeError(() => signRoom({ ...roomFields(), origin: str(hex) }, KEYS.authority.secret));
  });
  it('writers given bytes of the wrong length', () => {
    throwsTypeError(() => encodeRoom({ ...roomFields(), origin: new Uint8Array(31) }));
    throwsTypeError(() => encodePolicy(policyFields({ signer: new Uint8Array(33) })));
    throwsTypeError(() => encodeDecision(decisionFields({ session: new Uint8Array(32) })));
    throwsTypeError(() =>
      encodeDecision(
        decisionFields({
          pathways: [
            {
              load: 0,
              limits: 0,
              status: 3,
              class: 0,
              joules: 0n,
              delivery: 0n,
              evidence: [new Uint8Array(31)],
            },
          ],
        }),
      ),
    );
  });
  it('writers given numbers out of range, or of the wrong type', () => {
    throwsTypeError(() => encodePolicy(policyFields({ basis: 256 })));
    throwsTypeError(() => encodePolicy(policyFields({ basis: -1 })));
    throwsTypeError(() => encodePolicy(policyFields({ basis: 1.5 })));
    throwsTypeError(() => encodePolicy(policyFields({ basis: Number.NaN })));
    throwsTypeError(() => encodePolicy(policyFields({ ttl_s: 2 ** 32 })));
    throwsTypeError(() => encodePolicy(policyFields({ period_us: -1n })));
    throwsTypeError(() => encodePolicy(policyFields({ period_us: 1n << 64n })));
    throwsTypeError(() => encodePolicy(policyFields({ period_us: big(5) })));
    throwsTypeError(() => encodePolicy(policyFields({ tiers: [big(1)] })));
    throwsTypeError(() =>
      encodePolicy(policyFields({ tiers: Array.from({ length: 256 }, (_, i) => BigInt(i + 1)) })),
    );
    throwsTypeError(() => encodePolicy(policyFields({ server_uri: 'a'.repeat(65536) })));
    throwsTypeError(() => encodeDecision(decisionFields({ draw: -1 })));
    throwsTypeError(() => encodeDecision(decisionFields({ t: big(0) })));
    throwsTypeError(() => encodeHopRecord(hopRecordFields({ joules: 1n << 128n })));
    throwsTypeError(() => encodeHopRecord(hopRecordFields({ sessions: 2 ** 32 })));
    throwsTypeError(() =>
      encodeHopRecord(
        hopRecordFields({ tracks: [{ track: 2 ** 32, kind: 1, direction: 1, bytes: 0n }] }),
      ),
    );
    throwsTypeError(() => encodeHopRecord(hopRecordFields({ subscriber_us: [0n, 0n, 0n] })));
    throwsTypeError(() => encodeKeyLog(keyLogFields({ seq: -1n })));
    throwsTypeError(() => signHopRecord(hopRecordFields({ start: big(0) }), KEYS.hopA1.secret));
    throwsTypeError(() => signPolicy(policyFields({ flags: 256 }), KEYS.steer.secret));
  });
  it('writers given strings too long for their length, or of characters above a byte', () => {
    throwsTypeError(() => encodeRoom({ ...roomFields(), name: 'n'.repeat(256) }));
    throwsTypeError(() => encodeRoom({ ...roomFields(), name: 'café €' }));
    throwsTypeError(() => encodeRoom({ ...roomFields(), name: 7 as unknown as string }));
    throwsTypeError(() =>
      encodeKeyLog(
        keyLogFields({
          entries: [{ key: KEYS.steer.public, status: 1, may_sign: ['a'.repeat(256)] }],
        }),
      ),
    );
  });
});

describe('REASONS and isRefusal', () => {
  it('REASONS is exactly companion C7 table', () => {
    const c7 =
      'truncated malformed unknown_version bad_key bad_signature room_invalid key_log_missing ' +
      'key_log_invalid key_log_mismatch authority_not_listed authority_revoked wrong_room ' +
      'signer_not_authorised signer_revoked record_missing energy_invalid record_invalid ' +
      'hop_not_authorised hop_revoked classes_summed policy_invalid clone_unknown decision_invalid ' +
      'evidence_not_on_pathway evidence_outside_window evidence_mismatch unmetered_as_zero ' +
      'unknown_preferred decision_mismatch manifest_mismatch';
    expect([...REASONS].sort()).toEqual(c7.split(' ').sort());
    expect(isReason('truncated')).toBe(true);
    expect(isReason('TRUNCATED')).toBe(false);
  });

  it('recognises a refusal of a reader, and nothing else', () => {
    const r = readPolicy(new Uint8Array(2));
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(isRefusal(r.refusal)).toBe(true);
      expect(r.refusal).toBeInstanceOf(Refusal);
      expect(r.refusal).toBeInstanceOf(Error);
    }
    for (const x of [
      new Error('truncated'),
      new TypeError('x'),
      { reason: 'truncated', where: {} },
      null,
      undefined,
      'truncated',
      0,
    ]) {
      expect(isRefusal(x)).toBe(false);
    }
  });

  it('unwrap throws the refusal itself, and returns the value', () => {
    const r = readPolicy(new Uint8Array(2));
    expect(() => unwrap(r)).toThrow(Refusal);
    expect(unwrap(readPolicy(signedPolicy())).basis).toBe(1);
  });

  it('recognises a refusal of a class that carries the shared marker (another copy)', () => {
    class OtherRefusal extends Error {
      readonly reason = 'truncated';
      readonly where = {};
      constructor() {
        super('truncated');
        Object.defineProperty(this, Symbol.for('@wai-steering/wire.Refusal'), { value: true });
      }
    }
    const other = new OtherRefusal();
    expect(other instanceof Refusal).toBe(false);
    expect(isRefusal(other)).toBe(true);
    // The marker of another name is not it.
    const wrong = new Error('x');
    Object.defineProperty(wrong, Symbol.for('@wai-steering/wire.refusal'), { value: true });
    expect(isRefusal(wrong)).toBe(false);
  });

  it('recognises refusals across two loaded copies of the source module', async () => {
    vi.resetModules();
    const path = '../../src/refusal.js?second-copy';
    const second = (await import(/* @vite-ignore */ path)) as typeof import('../../src/refusal.js');
    expect(second.Refusal).not.toBe(Refusal);
    const fromSecond = new second.Refusal('bad_key', { magic: 'WSP1' });
    expect(fromSecond instanceof Refusal).toBe(false);
    expect(isRefusal(fromSecond)).toBe(true);
    expect(second.isRefusal(new Refusal('truncated'))).toBe(true);
    const r = readPolicy(new Uint8Array(0));
    if (!r.ok) expect(second.isRefusal(r.refusal)).toBe(true);
  });

  const dist = fileURLToPath(new URL('../../dist/index.js', import.meta.url));
  it.skipIf(!existsSync(dist))(
    'recognises refusals across the built dist and the source',
    async () => {
      const built = (await import(/* @vite-ignore */ dist)) as typeof import('../../src/index.js');
      expect(built.Refusal).not.toBe(Refusal);
      const r = built.readPolicy(new Uint8Array(3));
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.refusal instanceof Refusal).toBe(false);
      expect(isRefusal(r.refusal)).toBe(true);
      expect(r.refusal.reason).toBe('truncated');
      const mine = readPolicy(new Uint8Array(3));
      if (!mine.ok) expect(built.isRefusal(mine.refusal)).toBe(true);
      // The built copy reads the records the source signs, and refuses the same way.
      expect(built.readPolicy(signedPolicy()).ok).toBe(true);
      expect(built.readHopRecord(raw.hop(hopRecordFields({ class: 1 })))).toMatchObject({
        ok: false,
        refusal: { reason: 'energy_invalid' },
      });
      expect(built.signHopRecord(hopRecordFields(), KEYS.hopA1.secret)).toEqual(signedHopRecord());
    },
  );

  it('a refusal placed elsewhere keeps its reason', () => {
    const r = new Refusal('wrong_room', { magic: 'WMH1', field: 'room', offset: 5 });
    const placed = r.at({ at: 'evidence', pathway: 1, record: 2 });
    expect(isRefusal(placed)).toBe(true);
    expect(placed.reason).toBe('wrong_room');
    expect(placed.where).toEqual({
      magic: 'WMH1',
      field: 'room',
      offset: 5,
      at: 'evidence',
      pathway: 1,
      record: 2,
    });
  });
});
