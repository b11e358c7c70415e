import { createHash } from 'node:crypto';
import { nobleBackend } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { describe, expect, it } from 'vitest';
import {
  ed25519Signer,
  formatNote,
  formatVerifierKey,
  MAX_NOTE_SIGNATURES,
  type Note,
  noteKeyId,
  openNote,
  parseNote,
  parseVerifierKey,
  SIGNATURE_TYPE,
  signNote,
  type VerifierKey,
  verifierKey,
} from '../src/index.js';
import { noteOf } from '../src/note.js';
import { hex } from './helpers/naive.js';
import { QUASIMODO, SPEC_EXAMPLE, SUMDB } from './vectors/notes.js';

function vkey(s: string): VerifierKey {
  const read = parseVerifierKey(s);
  if (!read.ok) throw read.refusal;
  return read.value;
}

function reasonOf(r: { ok: boolean; refusal?: { reason: string } }): string {
  return r.ok ? 'ok' : r.refusal!.reason;
}

const secret = (n: number) => new Uint8Array(32).fill(n);
const alice = ed25519Signer('example.com/alice', secret(1));
const bob = ed25519Signer('example.com/bob', secret(2));

describe('signed-note, the text’s example', () => {
  it('reads the example vkey: name, key ID, type and key', () => {
    const key = vkey(SPEC_EXAMPLE.vkey);
    expect({ ...key, publicKey: hex(key.publicKey) }).toEqual({
      name: 'example.com/foo',
      keyId: 0x530d903a,
      type: 1,
      publicKey: SPEC_EXAMPLE.publicKeyHex,
    });
    expect(formatVerifierKey(key)).toEqual(SPEC_EXAMPLE.vkey);
  });

  it('verifies the example note with it, on both backends', () => {
    for (const backend of [nobleBackend, nodeBackend]) {
      const opened = openNote(SPEC_EXAMPLE.note, [vkey(SPEC_EXAMPLE.vkey)], backend);
      expect(opened.ok && opened.value.note.text).toEqual('This is an example message.\n');
      expect(opened.ok && opened.value.verified.map((v) => v.key.name)).toEqual([
        'example.com/foo',
      ]);
    }
  });

  it('refuses the example note with its text changed (bad_signature), and without its key (unverified)', () => {
    const changed = SPEC_EXAMPLE.note.replace('example message', 'example massage');
    expect(reasonOf(openNote(changed, [vkey(SPEC_EXAMPLE.vkey)]))).toEqual('bad_signature');
    expect(reasonOf(openNote(SPEC_EXAMPLE.note, [alice.verifierKey]))).toEqual('unverified');
  });

  it('reads the opening example: the text keeps its empty line, the signatures follow the last one', () => {
    const read = parseNote(QUASIMODO);
    expect(read.ok && read.value.text).toEqual(
      'Ognuno sta solo sul cuor della terra\ntrafitto da un raggio di sole:\n\ned è subito sera.\n',
    );
    expect(read.ok && read.value.signatures.map((s) => s.name)).toEqual([
      'quasimodo.example/salvatore',
    ]);
    expect(read.ok && formatNote(read.value)).toEqual(QUASIMODO);
  });
});

describe('signed-note, notes signed by Go’s implementation', () => {
  it('verifies a checkpoint of sum.golang.org with the vkey the go command pins', () => {
    const opened = openNote(SUMDB.note, [vkey(SUMDB.vkey)]);
    expect(opened.ok && opened.value.verified.length).toEqual(1);
    expect(
      reasonOf(openNote(SUMDB.note.replace('31700353', '31700354'), [vkey(SUMDB.vkey)])),
    ).toEqual('bad_signature');
  });
});

describe('key IDs and vkeys', () => {
  it('computes SHA-256(name ‖ 0x0A ‖ type ‖ key)[:4], as node:crypto does', () => {
    const pub = nobleBackend.publicKey(secret(9));
    for (const type of [SIGNATURE_TYPE.ed25519, SIGNATURE_TYPE.cosignatureV1]) {
      const want = createHash('sha256')
        .update(Buffer.concat([Buffer.from('log.example/é\n', 'utf8'), Buffer.of(type), pub]))
        .digest()
        .readUInt32BE(0);
      expect(noteKeyId('log.example/é', type, pub)).toEqual(want);
    }
  });

  it('writes and reads back the vkeys it makes', () => {
    for (const type of [1, 4]) {
      const key = verifierKey('w.example/x', type, nobleBackend.publicKey(secret(type)));
      expect(parseVerifierKey(formatVerifierKey(key))).toEqual({ ok: true, value: key });
    }
  });

  it('refuses vkeys that are not one, of another type, or whose key ID is not theirs', () => {
    const good = formatVerifierKey(alice.verifierKey);
    const [name, id, key] = [
      good.split('+')[0]!,
      good.split('+')[1]!,
      good.split('+').slice(2).join('+'),
    ];
    const cases: [string, string][] = [
      ['', 'malformed'],
      [name, 'malformed'],
      [`${name}+${id}`, 'malformed'],
      [`+${id}+${key}`, 'malformed'],
      [`a b+${id}+${key}`, 'malformed'],
      ['example.com/foo+530D903A+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k', 'malformed'],
      [`${name}+${id.slice(1)}+${key}`, 'malformed'],
      [`${name}+0${id}+${key}`, 'malformed'],
      [`${name}+${id}+${key.slice(0, -1)}`, 'malformed'],
      [`${name}+${id}+`, 'malformed'],
      [`${name}+00000000+${key}`, 'bad_key'],
      [`${name}+${id}+AQ==`, 'bad_key'],
      [
        `${name}+${id}+${Buffer.concat([Buffer.of(6), Buffer.alloc(1312)]).toString('base64')}`,
        'unsupported',
      ],
      [
        `${name}+${id}+${Buffer.concat([Buffer.of(2), Buffer.alloc(32)]).toString('base64')}`,
        'unsupported',
      ],
      [`other.example+${id}+${key}`, 'bad_key'],
    ];
    for (const [s, reason] of cases)
      expect({ s, reason: reasonOf(parseVerifierKey(s)) }).toEqual({ s, reason });
    expect(reasonOf(parseVerifierKey(good))).toEqual('ok');
  });
});

describe('signing and reading notes', () => {
  it('signs with several keys and verifies with any of them', () => {
    const note = signNote('hello\nworld\n', [alice, bob]);
    expect(note.startsWith('hello\nworld\n\n— example.com/alice ')).toEqual(true);
    for (const keys of [
      [alice.verifierKey],
      [bob.verifierKey],
      [alice.verifierKey, bob.verifierKey],
    ]) {
      const opened = openNote(note, keys);
      expect(opened.ok && opened.value.verified.map((v) => v.key.name)).toEqual(
        keys.map((k) => k.name),
      );
    }
  });

  it('signs the same bytes on both backends (RFC 8032 is deterministic)', () => {
    const a = ed25519Signer('x.example', secret(3), nobleBackend);
    const b = ed25519Signer('x.example', secret(3), nodeBackend);
    expect(signNote('t\n', [a])).toEqual(signNote('t\n', [b]));
  });

  it('ignores signatures of unknown keys, even sharing a known key’s name or ID but not both', () => {
    const note = parseNote(signNote('text\n', [alice]));
    if (!note.ok) throw note.refusal;
    const sig = note.value.signatures[0]!;
    const impostors: Note = {
      text: 'text\n',
      signatures: [
        { ...sig, keyId: (sig.keyId + 1) >>> 0, signature: new Uint8Array(64) },
        { ...sig, name: 'example.com/mallory', signature: new Uint8Array(64) },
        sig,
      ],
    };
    const opened = openNote(formatNote(impostors), [alice.verifierKey]);
    expect(opened.ok && opened.value.verified.map((v) => v.signature.name)).toEqual([
      'example.com/alice',
    ]);
  });

  it('refuses a note one of whose known keys’ signatures fails, even when another verifies', () => {
    const good = parseNote(signNote('text\n', [alice, bob]));
    if (!good.ok) throw good.refusal;
    const [a, b] = good.value.signatures;
    const broken = b!.signature.slice();
    broken[10]! ^= 1;
    const note = formatNote({ text: 'text\n', signatures: [a!, { ...b!, signature: broken }] });
    const opened = openNote(note, [alice.verifierKey, bob.verifierKey]);
    expect(reasonOf(opened)).toEqual('bad_signature');
    expect(opened.ok ? 0 : opened.refusal.where.line).toEqual(4);
    // A known key's signature of the wrong length fails too.
    const short = formatNote({
      text: 'text\n',
      signatures: [a!, { ...b!, signature: new Uint8Array(63) }],
    });
    expect(reasonOf(openNote(short, [alice.verifierKey, bob.verifierKey]))).toEqual(
      'bad_signature',
    );
  });

  it('accepts 16 and up to the stated maximum of signatures, and no more', () => {
    const sig = parseNote(signNote('t\n', [alice]));
    if (!sig.ok) throw sig.refusal;
    const many = (n: number) =>
      formatNote({
        text: 't\n',
        signatures: Array.from({ length: n }, () => sig.value.signatures[0]!),
      });
    expect(reasonOf(parseNote(many(16)))).toEqual('ok');
    expect(reasonOf(openNote(many(16), [alice.verifierKey]))).toEqual('ok');
    expect(reasonOf(parseNote(many(MAX_NOTE_SIGNATURES)))).toEqual('ok');
    expect(reasonOf(parseNote(many(MAX_NOTE_SIGNATURES + 1)))).toEqual('limit');
    expect(reasonOf(parseNote(many(MAX_NOTE_SIGNATURES + 1), { maxSignatures: 200 }))).toEqual(
      'ok',
    );
    expect(() => parseNote(many(1), { maxSignatures: 15 })).toThrow(TypeError);
  });

  it('refuses every note that breaks the format (malformed)', () => {
    const ok = signNote('text\n', [alice]);
    const line = ok.slice(ok.indexOf('—'));
    const sig = line.slice(line.lastIndexOf(' ') + 1, -1);
    const junk: [string, string | Uint8Array][] = [
      ['empty', ''],
      ['no empty line', `text\n${line}`],
      ['no signature', 'text\n\n'],
      ['no final newline', ok.slice(0, -1)],
      ['an empty line after the signatures', `${ok}\n`],
      ['a hyphen for the em dash', ok.replace('—', '-')],
      ['an en dash', ok.replace('—', '–')],
      ['no space after the dash', ok.replace('— ', '—')],
      ['two spaces', ok.replace('alice ', 'alice  ')],
      ['a tab', ok.replace('alice ', 'alice\t')],
      ['a name with +', ok.replace('alice', 'al+ice')],
      ['a name with a no-break space', ok.replace('alice', 'al\u00a0ice')],
      ['a name with an ideographic space', ok.replace('alice', 'al\u3000ice')],
      ['an empty name', `text\n\n—  ${sig}\n`],
      ['no signature text', 'text\n\n— example.com/alice \n'],
      ['base64 without padding', ok.replace(/=*\n$/, '\n')],
      ['base64 with a space', ok.replace(sig, `${sig.slice(0, 8)} ${sig.slice(8)}`)],
      ['a base64url character', ok.replace(sig, `-${sig.slice(1)}`)],
      ['a short signature', `text\n\n— a ${Buffer.alloc(4).toString('base64')}\n`],
      ['non-zero pad bits', `text\n\n— a AAAAAAB=\n`],
      ['a carriage return', ok.replace('text\n', 'text\r\n')],
      ['a NUL', ok.replace('text', 'te\u0000xt')],
      ['an escape', ok.replace('text', 'te\u001bxt')],
      ['a lone surrogate', ok.replace('text', 'te\ud800xt')],
      ['invalid UTF-8', Uint8Array.of(0x74, 0xff, 0x0a, 0x0a, ...new TextEncoder().encode(line))],
      [
        'overlong UTF-8',
        Uint8Array.of(0x74, 0xc0, 0xaf, 0x0a, 0x0a, ...new TextEncoder().encode(line)),
      ],
      ['a CR line end', ok.replace(/\n$/, '\r\n')],
    ];
    for (const [what, input] of junk) {
      expect({ what, reason: reasonOf(parseNote(input)) }).toEqual({ what, reason: 'malformed' });
    }
  });

  it('reads bytes as UTF-8 and keeps a byte-order mark in the text', () => {
    const note = signNote('\ufeffbom\n', [alice]);
    const read = parseNote(new TextEncoder().encode(note));
    expect(read.ok && read.value.text).toEqual('\ufeffbom\n');
    expect(reasonOf(openNote(new TextEncoder().encode(note), [alice.verifierKey]))).toEqual('ok');
  });

  it('is a TypeError to sign a text that is not a note text, or with a key name that is not one', () => {
    expect(() => signNote('no newline', [alice])).toThrow(TypeError);
    expect(() => signNote('tab\t\n', [alice])).toThrow(TypeError);
    expect(() => signNote('t\n', [])).toThrow(TypeError);
    expect(() => ed25519Signer('a b', secret(1))).toThrow(TypeError);
    expect(() => ed25519Signer('a+b', secret(1))).toThrow(TypeError);
    expect(() => ed25519Signer('', secret(1))).toThrow(TypeError);
    expect(() => ed25519Signer('a', new Uint8Array(31))).toThrow(TypeError);
    expect(() => openNote('t\n\n— a AAAAAAA=\n', [alice.verifierKey, alice.verifierKey])).toThrow(
      TypeError,
    );
  });
});

describe('noteOf', () => {
  it('reads text and bytes as parseNote does, and gives a note read already as it is', () => {
    const text = SPEC_EXAMPLE.note;
    const read = parseNote(text);
    expect(noteOf(text)).toEqual(read);
    expect(noteOf(new TextEncoder().encode(text))).toEqual(read);
    if (!read.ok) throw new Error('the example reads');
    expect(noteOf(read.value)).toEqual({ ok: true, value: read.value });
    expect(noteOf('no signature\n').ok).toEqual(false);
  });
});
