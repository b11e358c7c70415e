import { createHash } from 'node:crypto';
import { nobleBackend, readDecision, signDecision } from '@wai-steering/wire';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ENTRY_LENGTH,
  encodeEntry,
  encodeEntryBundle,
  entryOfDecision,
  readEntry,
  readEntryBundle,
} from '../src/index.js';
import { runs } from './helpers/mutate.js';
import { hex } from './helpers/naive.js';

describe('the decision log’s entry', () => {
  it('is t as a u64 little-endian, then the 32-byte digest: 40 bytes', () => {
    const digest = new Uint8Array(32).map((_, i) => i);
    const bytes = encodeEntry({ t: 0x0102030405060708n, digest });
    expect(bytes.length).toEqual(ENTRY_LENGTH);
    expect(hex(bytes)).toEqual(`0807060504030201${hex(digest)}`);
    expect(readEntry(bytes)).toEqual({ ok: true, value: { t: 0x0102030405060708n, digest } });
  });

  it('of a decision: its t and its digest (SHA-256 of its bytes before sig)', () => {
    const secret = new Uint8Array(32).fill(3);
    const bytes = signDecision(
      {
        room: new Uint8Array(32).fill(1),
        signer: nobleBackend.publicKey(secret),
        policy: new Uint8Array(32).fill(2),
        t: 1_767_225_600_123_456n,
        session: new Uint8Array(16).fill(0xab),
        draw: 123_456,
        protocol: 1,
        report: { present: 7, pathway: 0, throughput: 5_000_000n, buffer: 12_000n },
        pathways: [
          { load: 4, limits: 0, status: 3, class: 0, joules: 0n, delivery: 0n, evidence: [] },
        ],
        ttl: 300,
        reason: 5,
        priority: [0],
      },
      secret,
      { check: false },
    );
    const decision = readDecision(bytes);
    if (!decision.ok) throw decision.refusal;
    const digest = createHash('sha256')
      .update(bytes.subarray(0, bytes.length - 64))
      .digest();
    const entry = readEntry(entryOfDecision(decision.value));
    expect(entry.ok && { t: entry.value.t, digest: hex(entry.value.digest) }).toEqual({
      t: 1_767_225_600_123_456n,
      digest: digest.toString('hex'),
    });
  });

  it('refuses other lengths, and is a TypeError for fields that are not a u64 and 32 bytes', () => {
    for (const n of [0, 39, 41]) {
      const read = readEntry(new Uint8Array(n));
      expect(read.ok ? 'ok' : read.refusal.reason).toEqual('malformed');
    }
    expect(() => encodeEntry({ t: -1n, digest: new Uint8Array(32) })).toThrow(TypeError);
    expect(() => encodeEntry({ t: 1n << 64n, digest: new Uint8Array(32) })).toThrow(TypeError);
    expect(() => encodeEntry({ t: 1n, digest: new Uint8Array(31) })).toThrow(TypeError);
  });
});

describe('entry bundles', () => {
  it('are big-endian u16 length-prefixed entries', () => {
    const bundle = encodeEntryBundle([
      Uint8Array.of(0xaa),
      new Uint8Array(0),
      new Uint8Array(300).fill(1),
    ]);
    expect(hex(bundle.subarray(0, 7))).toEqual('0001aa0000012c');
    expect(bundle.length).toEqual(3 + 2 + 302);
  });

  it('read back what they write (1 to 256 entries of 0 to 65,535 bytes)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 70 }), { minLength: 1, maxLength: 256 }),
        (entries) => {
          const read = readEntryBundle(encodeEntryBundle(entries), entries.length);
          expect(read.ok && read.value.map(hex)).toEqual(entries.map(hex));
        },
      ),
      { numRuns: runs(300) },
    );
    const big = [new Uint8Array(65_535).fill(9)];
    const read = readEntryBundle(encodeEntryBundle(big));
    expect(read.ok && read.value[0]!.length).toEqual(65_535);
  });

  it('refuse a truncated length or entry, bytes past the last entry, more than 256 or not the width', () => {
    const two = encodeEntryBundle([Uint8Array.of(1, 2), Uint8Array.of(3)]);
    const cases: [Uint8Array, number | undefined][] = [
      [new Uint8Array(0), undefined],
      [Uint8Array.of(0), undefined],
      [two.subarray(0, two.length - 1), undefined],
      [Uint8Array.of(...two, 0), undefined],
      [Uint8Array.of(0, 5, 1, 2), undefined],
      [two, 1],
      [two, 3],
      [new Uint8Array(2 * 257), undefined],
    ];
    for (const [bytes, width] of cases) {
      const read = readEntryBundle(bytes, width);
      expect(read.ok ? 'ok' : read.refusal.reason).toEqual('malformed');
    }
    expect(readEntryBundle(new Uint8Array(2 * 256), 256).ok).toEqual(true);
    expect(() => encodeEntryBundle([])).toThrow(TypeError);
    expect(() => encodeEntryBundle([new Uint8Array(65_536)])).toThrow(TypeError);
    expect(() => readEntryBundle(two, 0)).toThrow(TypeError);
  });

  it('never throw on any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => {
        expect(typeof readEntryBundle(bytes).ok).toEqual('boolean');
      }),
      { numRuns: runs(3000) },
    );
  });
});
