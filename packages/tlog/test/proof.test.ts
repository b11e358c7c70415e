import { nodeBackend } from '@wai-steering/wire/node';
import { describe, expect, it } from 'vitest';
import {
  cosigner,
  ed25519Signer,
  formatTlogProof,
  parseTlogProof,
  proveInclusion,
  rootOf,
  signCheckpoint,
  TLOG_PROOF_HEADER,
  verifyTlogProof,
} from '../src/index.js';
import { entries } from './helpers/log.js';

const ORIGIN = 'steering.example/decisions';
const log = ed25519Signer(ORIGIN, new Uint8Array(32).fill(21), nodeBackend);
const w1 = cosigner('witness.example/w1', new Uint8Array(32).fill(22), nodeBackend);
const w2 = cosigner('witness.example/w2', new Uint8Array(32).fill(23), nodeBackend);

const SIZE = 300;
const all = entries(0, SIZE);
const leafHashes = all.map((e) => nodeBackend.sha256(Uint8Array.of(0, ...e)));
const root = rootOf(leafHashes, nodeBackend);
const source = (level: number, index: bigint) => {
  const start = Number(index) << level;
  return rootOf(leafHashes.slice(start, start + (1 << level)), nodeBackend);
};
const signed = signCheckpoint({ origin: ORIGIN, size: BigInt(SIZE), root, extensions: [] }, [
  log,
  w1.signerAt(1_767_225_600n),
  w2.signerAt(1_767_225_601n),
]);

function proofOf(index: number, extra?: Uint8Array): string {
  return formatTlogProof({
    ...(extra === undefined ? {} : { extra }),
    index: BigInt(index),
    inclusion: proveInclusion(BigInt(index), BigInt(SIZE), source, nodeBackend),
    checkpoint: signed,
  });
}

function reasonOf(r: { ok: boolean; refusal?: { reason: string } }): string {
  return r.ok ? 'ok' : r.refusal!.reason;
}

const options = { origin: ORIGIN, logKeys: [log.verifierKey], witnessKeys: [w1.verifierKey] };

describe('tlog-proof@v1', () => {
  it('writes the header, the index, one hash a line, an empty line and the checkpoint (no extra line)', () => {
    const text = proofOf(7);
    const lines = text.split('\n');
    expect(lines[0]).toEqual(TLOG_PROOF_HEADER);
    expect(lines[1]).toEqual('index 7');
    expect(lines.slice(2, 11).every((l) => l.length === 44)).toEqual(true);
    expect(lines[11]).toEqual('');
    expect(text.endsWith(signed)).toEqual(true);
    expect(text.includes('extra')).toEqual(false);
  });

  it('reads what it writes, an extra line included', () => {
    for (const extra of [undefined, new Uint8Array(0), Uint8Array.of(1, 2, 3)]) {
      const text = proofOf(299, extra);
      const read = parseTlogProof(text);
      if (!read.ok) throw read.refusal;
      expect(formatTlogProof(read.value)).toEqual(text);
      expect(read.value.extra).toEqual(extra);
    }
  });

  it('verifies: the entry in the checkpoint’s tree, signed by the log, the known witness’s cosignature reported', () => {
    for (const i of [0, 1, 150, 255, 256, 299]) {
      const verified = verifyTlogProof(proofOf(i), { ...options, entry: all[i]! });
      if (!verified.ok) throw verified.refusal;
      expect(verified.value.index).toEqual(BigInt(i));
      expect(verified.value.checkpoint.size).toEqual(BigInt(SIZE));
      expect(verified.value.cosignatures.map((c) => [c.name, c.timestamp])).toEqual([
        ['witness.example/w1', 1_767_225_600n],
      ]);
    }
    const both = verifyTlogProof(proofOf(3), {
      ...options,
      entry: all[3]!,
      witnessKeys: [w1.verifierKey, w2.verifierKey],
    });
    expect(both.ok && both.value.cosignatures.length).toEqual(2);
    const byHash = verifyTlogProof(proofOf(3), { ...options, leafHash: leafHashes[3]! });
    expect(reasonOf(byHash)).toEqual('ok');
  });

  it('refuses another entry, another origin, a checkpoint the log did not sign, a failing known cosignature', () => {
    expect(reasonOf(verifyTlogProof(proofOf(5), { ...options, entry: all[6]! }))).toEqual(
      'bad_proof',
    );
    expect(
      reasonOf(
        verifyTlogProof(proofOf(5), { ...options, entry: all[5]!, origin: 'other.example' }),
      ),
    ).toEqual('wrong_origin');
    const stranger = ed25519Signer(ORIGIN, new Uint8Array(32).fill(99));
    expect(
      reasonOf(
        verifyTlogProof(proofOf(5), {
          ...options,
          entry: all[5]!,
          logKeys: [stranger.verifierKey],
        }),
      ),
    ).toEqual('unverified');
    const text = proofOf(5);
    const w1line = text.split('\n').find((l) => l.startsWith('— witness.example/w1 '))!;
    const sig = w1line.split(' ')[2]!;
    const broken = text.replace(
      sig,
      `${sig.slice(0, 30)}${sig[30] === 'A' ? 'B' : 'A'}${sig.slice(31)}`,
    );
    expect(reasonOf(verifyTlogProof(broken, { ...options, entry: all[5]! }))).toEqual(
      'bad_signature',
    );
    // The same change is ignored when w1 is not a known witness.
    expect(
      reasonOf(verifyTlogProof(broken, { ...options, witnessKeys: [], entry: all[5]! })),
    ).toEqual('ok');
  });

  it('refuses every proof text that breaks the format (malformed)', () => {
    const good = proofOf(10);
    const lines = good.split('\n');
    const hash = lines[2]!;
    const junk: [string, string][] = [
      ['empty', ''],
      ['another header', good.replace(TLOG_PROOF_HEADER, 'c2sp.org/tlog-proof@v2')],
      ['no index', good.replace('index 10\n', '')],
      ['a leading zero', good.replace('index 10', 'index 010')],
      ['a negative index', good.replace('index 10', 'index -1')],
      ['an index past u64', good.replace('index 10', 'index 18446744073709551616')],
      ['two spaces', good.replace('index 10', 'index  10')],
      ['an extra line after the index', good.replace('index 10\n', 'index 10\nextra AAAA\n')],
      ['an extra line not base64', good.replace('index 10\n', 'extra !!\nindex 10\n')],
      ['extra without a space', good.replace('index 10\n', 'extra\nindex 10\n')],
      ['a hash of 31 bytes', good.replace(hash, Buffer.alloc(31).toString('base64'))],
      ['a hash not in base64', good.replace(hash, `${hash.slice(0, -2)}!=`)],
      ['no empty line', good.replace('\n\n', '\n')],
      ['65 hashes', good.replace(`${hash}\n`, `${`${hash}\n`.repeat(65)}`)],
      ['no checkpoint', good.slice(0, good.indexOf('\n\n') + 2)],
      ['a checkpoint without signature', good.slice(0, good.lastIndexOf('\n\n') + 2)],
      ['a CR', good.replace('index 10\n', 'index 10\r\n')],
    ];
    for (const [what, text] of junk) {
      expect({ what, reason: reasonOf(parseTlogProof(text)) }).toEqual({
        what,
        reason: 'malformed',
      });
    }
  });

  it('is a TypeError to verify without the entry or a leaf hash, or to write a proof that is not one', () => {
    expect(() => verifyTlogProof(proofOf(1), { ...options })).toThrow(TypeError);
    expect(() =>
      verifyTlogProof(proofOf(1), { ...options, entry: all[1]!, leafHash: leafHashes[1]! }),
    ).toThrow(TypeError);
    expect(() => formatTlogProof({ index: -1n, inclusion: [], checkpoint: signed })).toThrow(
      TypeError,
    );
    expect(() =>
      formatTlogProof({ index: 1n, inclusion: [new Uint8Array(3)], checkpoint: signed }),
    ).toThrow(TypeError);
    expect(() => formatTlogProof({ index: 1n, inclusion: [], checkpoint: 'not a note' })).toThrow(
      TypeError,
    );
  });
});
