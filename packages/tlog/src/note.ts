// signed-note: text signed by one or more keys; Ed25519 note signatures (type 0x01); verifier
// keys (vkeys); verification by the note's rules.
import { type CryptoBackend, getBackend } from '@wai-steering/wire';
import {
  COSIGNATURE_V1_LENGTH,
  cosignatureMessage,
  MAX_TIMESTAMP,
  splitTimestamped,
} from './internal/cosig.js';
import { attempt } from './internal/result.js';
import {
  decodeBase64,
  encodeBase64,
  fromUtf8,
  hasControl,
  hex32,
  isKeyName,
  isWellFormed,
  u32be,
  u32bytes,
  utf8,
} from './internal/text.js';
import { TlogRefusal, type TlogResult } from './refusal.js';

/**
 * signed-note's signature type identifier bytes that this package signs and verifies: `0x01`,
 * Ed25519 note signatures, and `0x04`, Ed25519 checkpoint cosignatures (tlog-cosignature v1).
 * ML-DSA-44 (`0x06`) and the others are not supported.
 */
export const SIGNATURE_TYPE = Object.freeze({ ed25519: 0x01, cosignatureV1: 0x04 } as const);

/**
 * The most signatures a note may carry here. signed-note: verifiers "SHOULD apply a maximum
 * limit to the number of signatures … but MUST accept at least up to 16".
 */
export const MAX_NOTE_SIGNATURES = 100;

/** A signature line: `— <key name> base64(key ID ‖ signature)`. */
export interface NoteSignature {
  readonly name: string;
  /** The 32-bit key ID (the first four bytes, big-endian). */
  readonly keyId: number;
  /** The bytes after the key ID. */
  readonly signature: Uint8Array;
}

/** A signed note: its text (ending in a newline) and its signatures, in order. */
export interface Note {
  readonly text: string;
  readonly signatures: readonly NoteSignature[];
}

export interface ParseNoteOptions {
  /** At most this many signatures (default {@link MAX_NOTE_SIGNATURES}; at least 16). */
  readonly maxSignatures?: number;
}

const DASH = '\u2014 ';

/** A note given as text or bytes, read (`parseNote`), or given as read already. */
export function noteOf(input: string | Uint8Array | Note): TlogResult<Note> {
  if (typeof input === 'string' || input instanceof Uint8Array) return parseNote(input);
  return { ok: true, value: input };
}

/**
 * Reads a signed note strictly (signed-note, "Format"): valid UTF-8 without control characters
 * but newline; the text, ending in a newline, separated from the signatures by the last empty
 * line; one or more lines `— <name> <base64>`, each ending in a newline, with a valid key name
 * and the canonical base64 of at least 5 bytes (a key ID and a signature). `malformed` otherwise,
 * `limit` past the maximum number of signatures. Nothing is verified.
 */
export function parseNote(
  input: string | Uint8Array,
  options: ParseNoteOptions = {},
): TlogResult<Note> {
  const max = options.maxSignatures ?? MAX_NOTE_SIGNATURES;
  if (!Number.isInteger(max) || max < 16)
    throw new TypeError('parseNote: maxSignatures must be at least 16');
  let s: string;
  if (input instanceof Uint8Array) {
    const decoded = fromUtf8(input);
    if (decoded === undefined) return malformed('note', undefined, 'not valid UTF-8');
    s = decoded;
  } else if (typeof input === 'string') {
    if (!isWellFormed(input)) return malformed('note', undefined, 'a lone surrogate (not UTF-8)');
    s = input;
  } else {
    throw new TypeError('parseNote: expected a string or a Uint8Array');
  }
  return attempt(() => readNote(s, max));
}

function readNote(s: string, max: number): Note {
  if (hasControl(s))
    throw refusal(
      'note',
      lineOf(s, s.search(/[\u0000-\u0009\u000b-\u001f]/)),
      'a control character',
    );
  const split = s.lastIndexOf('\n\n');
  if (split < 0) throw refusal('note', undefined, 'no empty line before the signatures');
  const text = s.slice(0, split + 1);
  const block = s.slice(split + 2);
  const firstLine = lineOf(s, split + 2);
  if (block.length === 0) throw refusal('note', firstLine, 'no signature');
  if (!block.endsWith('\n'))
    throw refusal('note', lineOf(s, s.length), 'the last line does not end in a newline');
  const lines = block.slice(0, -1).split('\n');
  if (lines.length > max)
    throw new TlogRefusal('limit', { what: 'note' }, `more than ${max} signatures`);
  const signatures = lines.map((line, i) => {
    const sig = readSignatureLine(line);
    if (typeof sig === 'string') throw refusal('note', firstLine + i, sig);
    return sig;
  });
  return { text, signatures };
}

/** One signature line without its newline; a string saying what is wrong otherwise. */
function readSignatureLine(line: string): NoteSignature | string {
  if (!line.startsWith(DASH)) return 'a signature line not beginning with an em dash and a space';
  const rest = line.slice(DASH.length);
  const space = rest.indexOf(' ');
  if (space < 0 || rest.indexOf(' ', space + 1) >= 0)
    return 'a signature line not of a name and a signature';
  const name = rest.slice(0, space);
  if (!isKeyName(name)) return 'an invalid key name';
  const bytes = decodeBase64(rest.slice(space + 1));
  if (bytes === undefined) return 'a signature not in canonical base64';
  if (bytes.length < 5) return 'a signature shorter than a key ID and one byte';
  return { name, keyId: u32be(bytes), signature: bytes.slice(4) };
}

/** Writes a note: its text, an empty line, and a signature line per signature. */
export function formatNote(note: Note): string {
  if (note === null || typeof note !== 'object') throw new TypeError('formatNote: expected a Note');
  checkText(note.text, 'formatNote');
  if (!Array.isArray(note.signatures) || note.signatures.length === 0) {
    throw new TypeError('formatNote: a note needs at least one signature');
  }
  return `${note.text}\n${note.signatures.map(formatSignatureLine).join('')}`;
}

/** One signature line, `— <name> base64(key ID ‖ signature)`, with its newline. */
export function formatSignatureLine(sig: NoteSignature): string {
  if (sig === null || typeof sig !== 'object' || !isKeyName(sig.name)) {
    throw new TypeError('formatSignatureLine: a key name must be non-empty, without spaces or +');
  }
  checkKeyId(sig.keyId, 'formatSignatureLine');
  if (!(sig.signature instanceof Uint8Array) || sig.signature.length === 0) {
    throw new TypeError('formatSignatureLine: expected signature bytes');
  }
  const bytes = new Uint8Array(4 + sig.signature.length);
  bytes.set(u32bytes(sig.keyId));
  bytes.set(sig.signature, 4);
  return `${DASH}${sig.name} ${encodeBase64(bytes)}\n`;
}

/** A verifier key: the key name and ID, the signature type and the public key. */
export interface VerifierKey {
  readonly name: string;
  readonly keyId: number;
  /** {@link SIGNATURE_TYPE}: 0x01 or 0x04. */
  readonly type: number;
  /** The 32-byte Ed25519 public key. */
  readonly publicKey: Uint8Array;
}

/**
 * signed-note's key ID: `SHA-256(key name ‖ 0x0A ‖ signature type ‖ public key)[:4]`, as a
 * big-endian u32 (tlog-cosignature's for type 0x04 is the same bytes).
 */
export function noteKeyId(
  name: string,
  type: number,
  publicKey: Uint8Array,
  backend?: CryptoBackend,
): number {
  if (typeof name !== 'string') throw new TypeError('noteKeyId: expected a key name');
  if (!Number.isInteger(type) || type < 0 || type > 255)
    throw new TypeError('noteKeyId: type is a byte');
  if (!(publicKey instanceof Uint8Array))
    throw new TypeError('noteKeyId: expected public key bytes');
  const n = utf8(name);
  const input = new Uint8Array(n.length + 2 + publicKey.length);
  input.set(n);
  input[n.length] = 0x0a;
  input[n.length + 1] = type;
  input.set(publicKey, n.length + 2);
  return u32be((backend ?? getBackend()).sha256(input));
}

/** The verifier key of an Ed25519 public key (type 0x01 or 0x04), its key ID computed. */
export function verifierKey(
  name: string,
  type: number,
  publicKey: Uint8Array,
  backend?: CryptoBackend,
): VerifierKey {
  if (!isKeyName(name))
    throw new TypeError('verifierKey: a key name must be non-empty, without spaces or +');
  if (type !== SIGNATURE_TYPE.ed25519 && type !== SIGNATURE_TYPE.cosignatureV1) {
    throw new TypeError('verifierKey: the type must be 0x01 (Ed25519) or 0x04 (cosignature/v1)');
  }
  if (!(publicKey instanceof Uint8Array) || publicKey.length !== 32) {
    throw new TypeError('verifierKey: expected a 32-byte Ed25519 public key');
  }
  return {
    name,
    keyId: noteKeyId(name, type, publicKey, backend),
    type,
    publicKey: publicKey.slice(),
  };
}

/** signed-note, "Verifier keys": `<key name>+hex(key ID)+base64(signature type ‖ public key)`. */
export function formatVerifierKey(key: VerifierKey): string {
  if (key === null || typeof key !== 'object' || !isKeyName(key.name)) {
    throw new TypeError('formatVerifierKey: expected a VerifierKey');
  }
  checkKeyId(key.keyId, 'formatVerifierKey');
  const bytes = new Uint8Array(1 + key.publicKey.length);
  bytes[0] = key.type;
  bytes.set(key.publicKey, 1);
  return `${key.name}+${hex32(key.keyId)}+${encodeBase64(bytes)}`;
}

/**
 * Reads a vkey strictly: a valid key name, the key ID as 8 lowercase hexadecimal digits, the
 * canonical base64 of the type and the key. `unsupported` for a type other than 0x01 and 0x04;
 * `bad_key` when the key is not 32 bytes or the key ID is not the one the name, type and key
 * give (tlog-cosignature: for 0x04 it "MUST be computed as" that; for 0x01 this package holds
 * keys to signed-note's recommendation, as the log's key ID is fixed so).
 */
export function parseVerifierKey(vkey: string, backend?: CryptoBackend): TlogResult<VerifierKey> {
  if (typeof vkey !== 'string') throw new TypeError('parseVerifierKey: expected a string');
  return attempt(() => {
    const first = vkey.indexOf('+');
    const second = first < 0 ? -1 : vkey.indexOf('+', first + 1);
    if (second < 0) throw refusal('vkey', undefined, 'not <name>+<key ID>+<key>');
    const name = vkey.slice(0, first);
    const id = vkey.slice(first + 1, second);
    if (!isKeyName(name)) throw refusal('vkey', undefined, 'an invalid key name');
    if (!/^[0-9a-f]{8}$/.test(id))
      throw refusal('vkey', undefined, 'a key ID not of 8 lowercase hex digits');
    const bytes = decodeBase64(vkey.slice(second + 1));
    if (bytes === undefined || bytes.length === 0)
      throw refusal('vkey', undefined, 'a key not in canonical base64');
    const type = bytes[0]!;
    if (type !== SIGNATURE_TYPE.ed25519 && type !== SIGNATURE_TYPE.cosignatureV1) {
      throw new TlogRefusal(
        'unsupported',
        { what: 'vkey' },
        `signature type 0x${type.toString(16).padStart(2, '0')}`,
      );
    }
    const publicKey = bytes.slice(1);
    if (publicKey.length !== 32)
      throw new TlogRefusal('bad_key', { what: 'vkey' }, 'an Ed25519 key is 32 bytes');
    const keyId = Number.parseInt(id, 16);
    if (keyId !== noteKeyId(name, type, publicKey, backend)) {
      throw new TlogRefusal(
        'bad_key',
        { what: 'vkey' },
        'the key ID is not the hash of the name, type and key',
      );
    }
    return { name, keyId, type, publicKey };
  });
}

/** What signs a note: a key's name and ID, and its signature of the note text's UTF-8 bytes. */
export interface NoteSigner {
  readonly name: string;
  readonly keyId: number;
  sign(message: Uint8Array): Uint8Array;
}

/** A signer of Ed25519 note signatures (type 0x01) from a 32-byte Ed25519 secret key. */
export function ed25519Signer(
  name: string,
  secretKey: Uint8Array,
  backend?: CryptoBackend,
): NoteSigner & { readonly verifierKey: VerifierKey } {
  const b = backend ?? getBackend();
  if (!(secretKey instanceof Uint8Array) || secretKey.length !== 32) {
    throw new TypeError('ed25519Signer: expected a 32-byte Ed25519 secret key');
  }
  const key = verifierKey(name, SIGNATURE_TYPE.ed25519, b.publicKey(secretKey), b);
  const secret = secretKey.slice();
  return {
    name,
    keyId: key.keyId,
    verifierKey: key,
    sign: (message: Uint8Array) => b.sign(secret, message),
  };
}

/** Signs `text` (ending in a newline) with each signer in turn, and writes the signed note. */
export function signNote(text: string, signers: readonly NoteSigner[]): string {
  checkText(text, 'signNote');
  if (!Array.isArray(signers) || signers.length === 0)
    throw new TypeError('signNote: expected signers');
  const message = utf8(text);
  return formatNote({
    text,
    signatures: signers.map((s) => ({ name: s.name, keyId: s.keyId, signature: s.sign(message) })),
  });
}

/** A signature of a known key that verified. */
export interface VerifiedSignature {
  readonly key: VerifierKey;
  readonly signature: NoteSignature;
  /** A cosignature's timestamp (type 0x04), POSIX seconds. */
  readonly timestamp?: bigint;
}

/** A note whose signatures by known keys all verified, at least one of them. */
export interface OpenedNote {
  readonly note: Note;
  /** The verified signatures, in the note's order. */
  readonly verified: readonly VerifiedSignature[];
}

/**
 * signed-note, "Signatures": reads the note (if it is not read yet) and verifies it with the
 * known `keys`. A signature whose name and key ID are not both a known key's is ignored; one
 * that is must verify, or the note is refused (`bad_signature`); and at least one must, or the
 * note is refused (`unverified`). Ed25519 signatures are verified strictly (companion C2, the
 * backend's rule); a cosignature (type 0x04) also needs a timestamp at most 2^63 − 1.
 */
export function openNote(
  input: string | Uint8Array | Note,
  keys: readonly VerifierKey[],
  backend?: CryptoBackend,
): TlogResult<OpenedNote> {
  const known = keyTable(keys, 'openNote');
  if (typeof input !== 'string' && !(input instanceof Uint8Array)) {
    if (input === null || typeof input !== 'object')
      throw new TypeError('openNote: expected a note');
    checkText(input.text, 'openNote');
  }
  const read = noteOf(input);
  if (!read.ok) return read;
  const note = read.value;
  const b = backend ?? getBackend();
  const message = utf8(note.text);
  const textLines = note.text.split('\n').length; // the text's lines, plus the empty line
  const verified: VerifiedSignature[] = [];
  for (let i = 0; i < note.signatures.length; i++) {
    const sig = note.signatures[i]!;
    const key = known.get(`${sig.keyId}+${sig.name}`);
    if (key === undefined) continue;
    const outcome = verifySignature(key, sig, note.text, message, b);
    if (outcome === undefined) {
      return {
        ok: false,
        refusal: new TlogRefusal(
          'bad_signature',
          { what: 'note', line: textLines + 1 + i },
          `by ${key.name}`,
        ),
      };
    }
    verified.push(outcome);
  }
  if (verified.length === 0) {
    return {
      ok: false,
      refusal: new TlogRefusal('unverified', { what: 'note' }, 'no signature by a known key'),
    };
  }
  return { ok: true, value: { note, verified } };
}

function verifySignature(
  key: VerifierKey,
  sig: NoteSignature,
  text: string,
  message: Uint8Array,
  backend: CryptoBackend,
): VerifiedSignature | undefined {
  if (key.type === SIGNATURE_TYPE.ed25519) {
    if (sig.signature.length !== 64) return undefined;
    return backend.verify(key.publicKey, message, sig.signature) === 'ok'
      ? { key, signature: sig }
      : undefined;
  }
  // tlog-cosignature: key ID ‖ timestamped_signature, over "cosignature/v1\ntime <ts>\n" ‖ body.
  if (sig.signature.length !== COSIGNATURE_V1_LENGTH) return undefined;
  const { timestamp, signature } = splitTimestamped(sig.signature)!;
  if (timestamp > MAX_TIMESTAMP) return undefined;
  const ok = backend.verify(key.publicKey, cosignatureMessage(timestamp, text), signature) === 'ok';
  return ok ? { key, signature: sig, timestamp } : undefined;
}

/** Known keys by key ID and name; a `TypeError` for two keys with the same name and ID. */
export function keyTable(keys: readonly VerifierKey[], what: string): Map<string, VerifierKey> {
  if (!Array.isArray(keys)) throw new TypeError(`${what}: expected an array of VerifierKey`);
  const table = new Map<string, VerifierKey>();
  for (const k of keys) {
    if (k === null || typeof k !== 'object' || !isKeyName(k.name))
      throw new TypeError(`${what}: a key is not a VerifierKey`);
    if (k.type !== SIGNATURE_TYPE.ed25519 && k.type !== SIGNATURE_TYPE.cosignatureV1) {
      throw new TypeError(`${what}: key ${k.name} has an unsupported type`);
    }
    if (!(k.publicKey instanceof Uint8Array) || k.publicKey.length !== 32) {
      throw new TypeError(`${what}: key ${k.name} is not a 32-byte Ed25519 key`);
    }
    checkKeyId(k.keyId, what);
    const id = `${k.keyId}+${k.name}`;
    if (table.has(id))
      throw new TypeError(`${what}: two keys named ${k.name} with key ID ${hex32(k.keyId)}`);
    table.set(id, k);
  }
  return table;
}

/** Caller misuse: a note text must end in a newline, be UTF-8, and hold no control character but newline. */
export function checkText(text: unknown, what: string): asserts text is string {
  if (typeof text !== 'string' || !text.endsWith('\n') || hasControl(text) || !isWellFormed(text)) {
    throw new TypeError(
      `${what}: a note text ends in a newline and has no control character but newline`,
    );
  }
}

function checkKeyId(keyId: unknown, what: string): void {
  if (typeof keyId !== 'number' || !Number.isInteger(keyId) || keyId < 0 || keyId > 0xffffffff) {
    throw new TypeError(`${what}: a key ID is a u32`);
  }
}

function refusal(what: string, line: number | undefined, detail: string): TlogRefusal {
  return new TlogRefusal('malformed', line === undefined ? { what } : { what, line }, detail);
}

function malformed(what: string, line: number | undefined, detail: string): TlogResult<never> {
  return { ok: false, refusal: refusal(what, line, detail) };
}

/** The 1-based line of the character at `index`. */
function lineOf(s: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index && i < s.length; i++) if (s.charCodeAt(i) === 0x0a) line++;
  return line;
}
