import { createPublicKey, verify } from 'node:crypto';
import { nobleBackend } from '@wai-steering/wire';
import { describe, expect, it } from 'vitest';
import {
  cosignatureTimestamp,
  cosigner,
  ed25519Signer,
  formatCheckpoint,
  formatNote,
  formatVerifierKey,
  openCheckpoint,
  openNote,
  parseNote,
  parseVerifierKey,
  signCheckpoint,
  signNote,
} from '../src/index.js';
import { ARCHE } from './vectors/notes.js';

const ORIGIN = 'steering.example/decisions';
const log = ed25519Signer(ORIGIN, new Uint8Array(32).fill(5));
const witness = cosigner('witness.example/w1', new Uint8Array(32).fill(8));
const body = formatCheckpoint({
  origin: ORIGIN,
  size: 10n,
  root: new Uint8Array(32).fill(3),
  extensions: [],
});

/** An Ed25519 public key as node:crypto takes it (RFC 8410 SPKI). */
function nodeKey(publicKey: Uint8Array) {
  return createPublicKey({
    key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), publicKey]),
    format: 'der',
    type: 'spki',
  });
}

describe('tlog-cosignature, Ed25519 (cosignature/v1)', () => {
  it('signs "cosignature/v1\\ntime <ts>\\n" and the checkpoint body, after the u64 big-endian timestamp (checked with node:crypto)', () => {
    const sig = witness.cosign(body, 1679315147n);
    expect(sig.name).toEqual('witness.example/w1');
    expect(sig.signature.length).toEqual(72);
    expect(Buffer.from(sig.signature.subarray(0, 8)).readBigUInt64BE(0)).toEqual(1679315147n);
    const message = Buffer.from(`cosignature/v1\ntime 1679315147\n${body}`);
    expect(
      verify(null, message, nodeKey(witness.verifierKey.publicKey), sig.signature.subarray(8)),
    ).toEqual(true);
    expect(cosignatureTimestamp(sig)).toEqual(1679315147n);
  });

  it('has the key ID SHA-256(name ‖ "\\n" ‖ 0x04 ‖ key)[:4], and a vkey of type 0x04 that reads back', () => {
    const vkey = formatVerifierKey(witness.verifierKey);
    expect(Buffer.from(vkey.split('+').slice(2).join('+'), 'base64')[0]).toEqual(4);
    const read = parseVerifierKey(vkey);
    expect(read.ok && read.value).toEqual(witness.verifierKey);
    // The same key as a note signer (0x01) has another key ID.
    const plain = ed25519Signer('witness.example/w1', new Uint8Array(32).fill(8));
    expect(plain.keyId === witness.keyId).toEqual(false);
  });

  it('verifies as a note signature on the checkpoint, reporting its timestamp', () => {
    const note = signNote(body, [log, witness.signerAt(1700000000n)]);
    const opened = openCheckpoint(note, {
      origin: ORIGIN,
      logKeys: [log.verifierKey],
      witnessKeys: [witness.verifierKey],
    });
    expect(opened.ok && opened.value.verified.map((v) => [v.key.name, v.timestamp])).toEqual([
      [ORIGIN, undefined],
      ['witness.example/w1', 1700000000n],
    ]);
  });

  it('fails on another timestamp, another body, a timestamp past 2^63 − 1, or a wrong length', () => {
    const sig = witness.cosign(body, 1700000000n);
    const swap = (bytes: Uint8Array) =>
      formatNote({ text: body, signatures: [{ ...sig, signature: bytes }] });
    const later = sig.signature.slice();
    later[7]! ^= 1;
    const huge = sig.signature.slice();
    huge[0] = 0x80;
    for (const bytes of [
      later,
      huge,
      sig.signature.subarray(0, 71),
      new Uint8Array([...sig.signature, 0]),
    ]) {
      const opened = openNote(swap(bytes), [witness.verifierKey]);
      expect(opened.ok ? 'ok' : opened.refusal.reason).toEqual('bad_signature');
    }
    const other = formatCheckpoint({
      origin: ORIGIN,
      size: 11n,
      root: new Uint8Array(32).fill(3),
      extensions: [],
    });
    const moved = formatNote({ text: other, signatures: [sig] });
    const opened = openNote(moved, [witness.verifierKey]);
    expect(opened.ok ? 'ok' : opened.refusal.reason).toEqual('bad_signature');
  });

  it('covers extension lines', () => {
    const ext = formatCheckpoint({
      origin: ORIGIN,
      size: 10n,
      root: new Uint8Array(32).fill(3),
      extensions: ['Extendo'],
    });
    const note = signNote(ext, [witness.signerAt(5n)]);
    expect(openNote(note, [witness.verifierKey]).ok).toEqual(true);
    const changed = note.replace('Extendo', 'Extende');
    const opened = openNote(changed, [witness.verifierKey]);
    expect(opened.ok ? 'ok' : opened.refusal.reason).toEqual('bad_signature');
  });

  it('verifies a real witness’s cosignature (remora.n621.de, from the CT log checkpoint)', () => {
    const key = parseVerifierKey(ARCHE.witnessVkey);
    if (!key.ok) throw key.refusal;
    const opened = openNote(ARCHE.note, [key.value]);
    expect(opened.ok && opened.value.verified.map((v) => v.timestamp)).toEqual([1779573024n]);
    const note = parseNote(ARCHE.note);
    expect(note.ok && note.value.signatures.map(cosignatureTimestamp)).toEqual([
      undefined, // RFC 6962 tree head signature (0x05)
      undefined, // Ed25519 note signature (0x01)
      1779573024n,
      1779573024n,
      1779573024n,
      1779573024n,
    ]);
  });

  it('is a TypeError to cosign at time 0 or past 2^63 − 1, or a text that is not a note text', () => {
    expect(() => witness.cosign(body, 0n)).toThrow(TypeError);
    expect(() => witness.cosign(body, 1n << 63n)).toThrow(TypeError);
    expect(() => witness.signerAt(0n)).toThrow(TypeError);
    expect(() => witness.cosign('no newline', 1n)).toThrow(TypeError);
    expect(() => cosigner('w', new Uint8Array(31))).toThrow(TypeError);
    expect(witness.cosign(body, (1n << 63n) - 1n).signature.length).toEqual(72);
  });

  it('signs the same bytes on any backend', () => {
    const a = cosigner('w.example', new Uint8Array(32).fill(1), nobleBackend);
    expect(
      signCheckpoint({ origin: ORIGIN, size: 1n, root: new Uint8Array(32), extensions: [] }, [
        a.signerAt(9n),
      ]),
    ).toEqual(
      signCheckpoint({ origin: ORIGIN, size: 1n, root: new Uint8Array(32), extensions: [] }, [
        cosigner('w.example', new Uint8Array(32).fill(1)).signerAt(9n),
      ]),
    );
  });
});
