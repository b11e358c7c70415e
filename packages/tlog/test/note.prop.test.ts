import { nodeBackend } from '@wai-steering/wire/node';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type Checkpoint,
  ed25519Signer,
  formatCheckpoint,
  formatNote,
  formatVerifierKey,
  openCheckpoint,
  openNote,
  parseAddCheckpoint,
  parseCheckpoint,
  parseNote,
  parseTilePath,
  parseTlogProof,
  parseVerifierKey,
  signCheckpoint,
  signNote,
  verifierKey,
} from '../src/index.js';
import { decodeBase64, encodeBase64 } from '../src/internal/text.js';
import { mutate, mutation, runs } from './helpers/mutate.js';

const keys = Array.from({ length: 4 }, (_, i) =>
  ed25519Signer(`k${i}.example/log`, new Uint8Array(32).fill(40 + i), nodeBackend),
);

/** A note text: lines of any Unicode but control characters, each ending in a newline. */
const line = fc
  .string({ unit: 'binary', maxLength: 30 })
  .map((s) => s.replace(/[\u0000-\u001f]/g, '').replace(/\p{Surrogate}/gu, ''));
const text = fc
  .array(line, { minLength: 1, maxLength: 6 })
  .map((ls) => ls.map((l) => `${l}\n`).join(''));

describe('base64 (RFC 4648 §4, strict) agrees with Node’s Buffer', () => {
  it('encodes as Buffer does, and reads back', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), (bytes) => {
        const s = encodeBase64(bytes);
        expect(s).toEqual(Buffer.from(bytes).toString('base64'));
        expect(decodeBase64(s)).toEqual(bytes);
      }),
      { numRuns: runs(2000) },
    );
  });

  it('reads only the one canonical spelling of bytes: what it takes, Buffer writes back the same', () => {
    const alphabet = fc.constantFrom(
      ...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_ \n'.split(''),
    );
    fc.assert(
      fc.property(
        fc.array(alphabet, { maxLength: 16 }).map((cs) => cs.join('')),
        (s) => {
          const got = decodeBase64(s);
          if (got !== undefined) expect(Buffer.from(got).toString('base64')).toEqual(s);
        },
      ),
      { numRuns: runs(20000) },
    );
  });
});

describe('signed notes: round trips and mutations', () => {
  it('signs, writes, reads and verifies any note text with 1 to 4 keys', () => {
    fc.assert(
      fc.property(text, fc.subarray(keys, { minLength: 1 }), (t, signers) => {
        const note = signNote(t, signers);
        const read = parseNote(note);
        if (!read.ok) throw read.refusal;
        expect(read.value.text).toEqual(t);
        expect(formatNote(read.value)).toEqual(note);
        const opened = openNote(
          note,
          signers.map((s) => s.verifierKey),
          nodeBackend,
        );
        expect(opened.ok && opened.value.verified.length).toEqual(signers.length);
      }),
      { numRuns: runs(300) },
    );
  });

  it('refuses any one-character change of a note signed by one key', () => {
    fc.assert(
      fc.property(text, mutation, (t, m) => {
        const note = signNote(t, [keys[0]!]);
        const changed = mutate(note, m);
        if (changed === undefined) return;
        const opened = openNote(changed, [keys[0]!.verifierKey], nodeBackend);
        expect(opened.ok).toEqual(false);
      }),
      { numRuns: runs(1000) },
    );
  });

  it('never verifies a changed text, and never a signature the keys did not make (several keys)', () => {
    fc.assert(
      fc.property(text, mutation, (t, m) => {
        const note = signNote(t, keys);
        const changed = mutate(note, m);
        if (changed === undefined) return;
        const opened = openNote(
          changed,
          keys.map((k) => k.verifierKey),
          nodeBackend,
        );
        if (!opened.ok) return;
        // Only a change that made one signature line unknown can leave the note verified.
        expect(opened.value.note.text).toEqual(t);
        const original = parseNote(note);
        if (!original.ok) throw original.refusal;
        const lines = new Set(
          original.value.signatures.map((s) => `${s.name} ${encodeBase64(s.signature)} ${s.keyId}`),
        );
        for (const v of opened.value.verified) {
          expect(
            lines.has(
              `${v.signature.name} ${encodeBase64(v.signature.signature)} ${v.signature.keyId}`,
            ),
          ).toEqual(true);
        }
      }),
      { numRuns: runs(1000) },
    );
  });

  it('gives a result for any input, never an exception', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary' }),
          fc.uint8Array({ maxLength: 200 }).map((b) => b as Uint8Array | string),
        ),
        (input) => {
          const read = parseNote(input);
          expect(typeof read.ok).toEqual('boolean');
          expect(typeof openNote(input, [keys[0]!.verifierKey]).ok).toEqual('boolean');
          expect(typeof parseCheckpoint(typeof input === 'string' ? input : 'x').ok).toEqual(
            'boolean',
          );
          expect(typeof parseVerifierKey(typeof input === 'string' ? input : 'x').ok).toEqual(
            'boolean',
          );
          expect(typeof parseTlogProof(input).ok).toEqual('boolean');
          expect(typeof parseAddCheckpoint(input).ok).toEqual('boolean');
          expect(typeof parseTilePath(typeof input === 'string' ? input : 'x').ok).toEqual(
            'boolean',
          );
          // Near-valid: the same text after a valid header.
          if (typeof input === 'string') {
            expect(typeof parseTlogProof(`c2sp.org/tlog-proof@v1\nindex 0\n\n${input}`).ok).toEqual(
              'boolean',
            );
            expect(typeof parseAddCheckpoint(`old 0\n\n${input}`).ok).toEqual('boolean');
          }
        },
      ),
      { numRuns: runs(3000) },
    );
  });
});

describe('vkeys: round trips and mutations', () => {
  it('reads back every vkey it writes; a one-character change is refused, or is another key’s own vkey', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.constantFrom(1, 4),
        fc.stringMatching(/^[a-z0-9./_:-]{1,20}$/),
        mutation,
        (publicKey, type, name, m) => {
          const key = verifierKey(name, type, publicKey, nodeBackend);
          const vkey = formatVerifierKey(key);
          expect(parseVerifierKey(vkey, nodeBackend)).toEqual({ ok: true, value: key });
          const changed = mutate(vkey, m);
          if (changed === undefined) return;
          const read = parseVerifierKey(changed, nodeBackend);
          // A change passes only if it is a key's own vkey (its key ID agreeing): never the same key.
          if (read.ok) expect(formatVerifierKey(read.value)).toEqual(changed);
          if (read.ok) expect(read.value).not.toEqual(key);
        },
      ),
      { numRuns: runs(1000) },
    );
  });
});

const checkpoint: fc.Arbitrary<Checkpoint> = fc.record({
  origin: fc.stringMatching(/^[a-z0-9./ -]{1,30}$/).filter((s) => s.length > 0),
  size: fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
  root: fc.uint8Array({ minLength: 32, maxLength: 32 }),
  extensions: fc.array(fc.stringMatching(/^[ -~]{1,20}$/), { maxLength: 2 }),
});

describe('checkpoints: round trips and mutations', () => {
  it('reads back every checkpoint it writes', () => {
    fc.assert(
      fc.property(checkpoint, (c) => {
        expect(parseCheckpoint(formatCheckpoint(c))).toEqual({ ok: true, value: c });
      }),
      { numRuns: runs(2000) },
    );
  });

  it('reads a changed checkpoint text only when it is the canonical text of what it read', () => {
    fc.assert(
      fc.property(checkpoint, mutation, (c, m) => {
        const changed = mutate(formatCheckpoint(c), m);
        if (changed === undefined) return;
        const read = parseCheckpoint(changed);
        if (read.ok) expect(formatCheckpoint(read.value)).toEqual(changed);
      }),
      { numRuns: runs(3000) },
    );
  });

  it('refuses any one-character change of a signed checkpoint', () => {
    const log = keys[1]!;
    fc.assert(
      fc.property(checkpoint, mutation, (c, m) => {
        const named = { ...c, origin: log.name };
        const changed = mutate(signCheckpoint(named, [log]), m);
        if (changed === undefined) return;
        expect(
          openCheckpoint(changed, {
            origin: log.name,
            logKeys: [log.verifierKey],
            backend: nodeBackend,
          }).ok,
        ).toEqual(false);
      }),
      { numRuns: runs(1000) },
    );
  });
});
