import { describe, expect, it } from 'vitest';
import {
  type Checkpoint,
  ed25519Signer,
  emptyRoot,
  formatCheckpoint,
  openCheckpoint,
  parseCheckpoint,
  parseNote,
  parseVerifierKey,
  signCheckpoint,
  type VerifierKey,
} from '../src/index.js';
import { hex } from './helpers/naive.js';
import { ARCHE, REKOR_CHECKPOINTS, SUMDB } from './vectors/notes.js';

function vkey(s: string): VerifierKey {
  const read = parseVerifierKey(s);
  if (!read.ok) throw read.refusal;
  return read.value;
}

function reasonOf(r: { ok: boolean; refusal?: { reason: string } }): string {
  return r.ok ? 'ok' : r.refusal!.reason;
}

const ORIGIN = 'steering.example/decisions';
const log = ed25519Signer(ORIGIN, new Uint8Array(32).fill(5));
const root = new Uint8Array(32).map((_, i) => i);
const checkpoint: Checkpoint = { origin: ORIGIN, size: 1234n, root, extensions: [] };

describe('tlog-checkpoint, the note text', () => {
  it('writes the origin, the size and the base64 root, each on its line (the text’s example)', () => {
    const text = formatCheckpoint({
      origin: 'example.com/behind-the-sofa',
      size: 20852163n,
      root: new Uint8Array(Buffer.from('CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=', 'base64')),
      extensions: [],
    });
    expect(text).toEqual(
      'example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n',
    );
  });

  it('reads what it writes, extension lines included, and size 0', () => {
    for (const c of [
      checkpoint,
      { ...checkpoint, extensions: ['Timestamp: 1', 'x'] },
      { ...checkpoint, size: 0n, root: emptyRoot() },
      { ...checkpoint, size: (1n << 64n) - 1n },
    ]) {
      expect(parseCheckpoint(formatCheckpoint(c))).toEqual({ ok: true, value: c });
    }
  });

  it('reads the checkpoints of sum.golang.org and of Rekor (one with an extension line)', () => {
    const sumdb = parseNote(SUMDB.note);
    const read = sumdb.ok ? parseCheckpoint(sumdb.value.text) : sumdb;
    expect(read.ok && { ...read.value, root: hex(read.value.root) }).toEqual({
      origin: 'go.sum database tree',
      size: 31700353n,
      root: Buffer.from('qINS1GRFhWHwdkUeqLEoP4yEMkTBBzxBkGwGQlVlVcs=', 'base64').toString('hex'),
      extensions: [],
    });
    const rekor = REKOR_CHECKPOINTS.map((n) => {
      const note = parseNote(n);
      if (!note.ok) throw note.refusal;
      const c = parseCheckpoint(note.value.text);
      if (!c.ok) throw c.refusal;
      return { origin: c.value.origin, size: c.value.size, extensions: c.value.extensions };
    });
    expect(rekor).toEqual([
      {
        origin: 'rekor.sigstore.dev - 2605736670972794746',
        size: 21428036n,
        extensions: ['Timestamp: 1688058656037355364'],
      },
      { origin: 'rekor.sigstage.dev - 8050909264565447525', size: 23003647n, extensions: [] },
    ]);
  });

  it('refuses every text that is not a checkpoint', () => {
    const r = 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=';
    const junk: [string, string][] = [
      ['', 'malformed'],
      ['o\n1\n', 'malformed'],
      [`o\n1\n${r}`, 'malformed'],
      [`\n1\n${r}\n`, 'malformed'],
      [`o\n\n${r}\n`, 'malformed'],
      [`o\n01\n${r}\n`, 'malformed'],
      [`o\n00\n${r}\n`, 'malformed'],
      [`o\n+1\n${r}\n`, 'malformed'],
      [`o\n-1\n${r}\n`, 'malformed'],
      [`o\n1 \n${r}\n`, 'malformed'],
      [`o\n 1\n${r}\n`, 'malformed'],
      [`o\n0x1\n${r}\n`, 'malformed'],
      [`o\n１\n${r}\n`, 'malformed'],
      [`o\n18446744073709551616\n${r}\n`, 'limit'],
      [`o\n999999999999999999999999\n${r}\n`, 'limit'],
      [`o\n1\n${r.slice(0, -1)}\n`, 'malformed'],
      [`o\n1\nAAAA\n`, 'malformed'],
      [`o\n1\n${r.slice(0, -2)}1=\n`, 'malformed'], // non-zero pad bits
      [`o\n1\n${Buffer.alloc(33).toString('base64')}\n`, 'malformed'],
      [`o\n1\n${r}\n\n`, 'malformed'], // an empty extension line
      [`o\n1\n${r}\next\n\nmore\n`, 'malformed'],
      [`o\r\n1\n${r}\n`, 'malformed'],
    ];
    for (const [text, reason] of junk)
      expect({ text, reason: reasonOf(parseCheckpoint(text)) }).toEqual({ text, reason });
  });

  it('is a TypeError to write a checkpoint that is not one', () => {
    expect(() => formatCheckpoint({ ...checkpoint, origin: '' })).toThrow(TypeError);
    expect(() => formatCheckpoint({ ...checkpoint, origin: 'a\nb' })).toThrow(TypeError);
    expect(() => formatCheckpoint({ ...checkpoint, size: -1n })).toThrow(TypeError);
    expect(() => formatCheckpoint({ ...checkpoint, root: new Uint8Array(31) })).toThrow(TypeError);
    expect(() => formatCheckpoint({ ...checkpoint, extensions: [''] })).toThrow(TypeError);
  });
});

describe('signed checkpoints', () => {
  it('signs with the log key (key name = origin) and opens with it', () => {
    const note = signCheckpoint(checkpoint, [log]);
    expect(note.split('\n')[4]!.startsWith(`— ${ORIGIN} `)).toEqual(true);
    const opened = openCheckpoint(note, { origin: ORIGIN, logKeys: [log.verifierKey] });
    expect(opened.ok && opened.value.checkpoint).toEqual(checkpoint);
  });

  it('refuses another origin, an unsigned or changed checkpoint, and one signed by witnesses only', () => {
    const note = signCheckpoint(checkpoint, [log]);
    expect(
      reasonOf(openCheckpoint(note, { origin: 'other.example', logKeys: [log.verifierKey] })),
    ).toEqual('wrong_origin');
    const other = ed25519Signer(ORIGIN, new Uint8Array(32).fill(6));
    expect(
      reasonOf(openCheckpoint(note, { origin: ORIGIN, logKeys: [other.verifierKey] })),
    ).toEqual('unverified');
    expect(
      reasonOf(
        openCheckpoint(note.replace('1234', '1235'), {
          origin: ORIGIN,
          logKeys: [log.verifierKey],
        }),
      ),
    ).toEqual('bad_signature');
    const witness = ed25519Signer('witness.example', new Uint8Array(32).fill(7));
    const byWitness = signCheckpoint(checkpoint, [witness]);
    expect(
      reasonOf(
        openCheckpoint(byWitness, {
          origin: ORIGIN,
          logKeys: [log.verifierKey],
          witnessKeys: [witness.verifierKey],
        }),
      ),
    ).toEqual('unverified');
  });

  it('opens a real checkpoint of a static CT log with its log key and a witness’s cosignature', () => {
    const logKey = vkey(ARCHE.logVkey);
    const witnessKey = vkey(ARCHE.witnessVkey);
    expect(witnessKey.type).toEqual(4);
    const opened = openCheckpoint(ARCHE.note, {
      origin: ARCHE.origin,
      logKeys: [logKey],
      witnessKeys: [witnessKey],
    });
    if (!opened.ok) throw opened.refusal;
    expect(opened.value.checkpoint.size).toEqual(ARCHE.size);
    expect(opened.value.verified.map((v) => [v.key.name, v.timestamp])).toEqual([
      [ARCHE.origin, undefined],
      ['remora.n621.de', 1779573024n],
    ]);
    // The cosignature covers the checkpoint body: a changed size fails it.
    const changed = ARCHE.note.replace('1432088532', '1432088533');
    expect(reasonOf(openCheckpoint(changed, { origin: ARCHE.origin, logKeys: [logKey] }))).toEqual(
      'bad_signature',
    );
    expect(
      reasonOf(
        openCheckpoint(ARCHE.note.replace('2net5wAAAABqEiEgPlfF', '2net5wAAAABqEiEgQlfF'), {
          origin: ARCHE.origin,
          logKeys: [logKey],
          witnessKeys: [witnessKey],
        }),
      ),
    ).toEqual('bad_signature');
  });
});
