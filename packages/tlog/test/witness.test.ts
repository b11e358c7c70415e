import { createHash } from 'node:crypto';
import { nodeBackend } from '@wai-steering/wire/node';
import { describe, expect, it } from 'vitest';
import {
  type AddCheckpointAnswer,
  addCosignatures,
  cosigner,
  decideAddCheckpoint,
  ed25519Signer,
  emptyRoot,
  formatAddCheckpoint,
  openCheckpoint,
  originHash,
  parseAddCheckpoint,
  proveConsistency,
  rootOf,
  signCheckpoint,
  type WitnessState,
} from '../src/index.js';
import { entries } from './helpers/log.js';

const ORIGIN = 'steering.example/decisions';
const log = ed25519Signer(ORIGIN, new Uint8Array(32).fill(31), nodeBackend);
const witness = cosigner('witness.example/w1', new Uint8Array(32).fill(32), nodeBackend);
const NOW = 1_767_225_600n;

const leafHashes = entries(0, 600).map((e) => nodeBackend.sha256(Uint8Array.of(0, ...e)));
const rootAt = (n: number) => rootOf(leafHashes.slice(0, n), nodeBackend);
const source = (level: number, index: bigint) => {
  const start = Number(index) << level;
  return rootOf(leafHashes.slice(start, start + (1 << level)), nodeBackend);
};
const checkpointAt = (n: number, signers = [log]) =>
  signCheckpoint({ origin: ORIGIN, size: BigInt(n), root: rootAt(n), extensions: [] }, signers);

function request(
  oldSize: number,
  size: number,
  proof = proveConsistency(BigInt(oldSize), BigInt(size), source, nodeBackend),
) {
  return formatAddCheckpoint({ oldSize: BigInt(oldSize), proof, checkpoint: checkpointAt(size) });
}

function decide(
  body: string,
  state: WitnessState | undefined,
  logKeys = [log.verifierKey],
): AddCheckpointAnswer {
  const req = parseAddCheckpoint(body);
  if (!req.ok) throw req.refusal;
  return decideAddCheckpoint(req.value, {
    logKeys,
    state,
    cosigners: [witness],
    timestamp: NOW,
    backend: nodeBackend,
  });
}

const stateAt = (n: number): WitnessState => ({
  size: BigInt(n),
  root: rootAt(n),
  checkpoint: checkpointAt(n),
});

describe('tlog-witness add-checkpoint: the request body', () => {
  it('writes and reads the text’s shape: old size, proof lines, an empty line, the checkpoint', () => {
    const body = request(100, 300);
    const lines = body.split('\n');
    expect(lines[0]).toEqual('old 100');
    const read = parseAddCheckpoint(body);
    if (!read.ok) throw read.refusal;
    expect(read.value.oldSize).toEqual(100n);
    expect(read.value.proof.length).toEqual(lines.indexOf('') - 1);
    expect(read.value.parsed.size).toEqual(300n);
    expect(formatAddCheckpoint(read.value)).toEqual(body);
    expect(parseAddCheckpoint(new TextEncoder().encode(body)).ok).toEqual(true);
  });

  it('refuses bodies that break it: malformed, or more than 63 proof lines (limit)', () => {
    const good = request(100, 300);
    const hash = good.split('\n')[1]!;
    const cases: [string, string, string][] = [
      ['empty', '', 'malformed'],
      ['no old line', good.replace('old 100\n', ''), 'malformed'],
      ['a leading zero', good.replace('old 100', 'old 0100'), 'malformed'],
      ['OLD', good.replace('old 100', 'OLD 100'), 'malformed'],
      ['two spaces', good.replace('old 100', 'old  100'), 'malformed'],
      ['a tab', good.replace('old 100', 'old\t100'), 'malformed'],
      ['a short hash', good.replace(hash, Buffer.alloc(16).toString('base64')), 'malformed'],
      ['no empty line', good.replace('\n\n', '\n'), 'malformed'],
      [
        'a bad checkpoint',
        `${good.slice(0, good.indexOf('\n\n'))}\n\nnot a checkpoint\n\n— a AAAAAAA=\n`,
        'malformed',
      ],
      ['64 proof lines', good.replace(`${hash}\n`, `${hash}\n`.repeat(64)), 'limit'],
    ];
    for (const [what, body, reason] of cases) {
      const read = parseAddCheckpoint(body);
      expect({ what, reason: read.ok ? 'ok' : read.refusal.reason }).toEqual({ what, reason });
    }
    expect(
      parseAddCheckpoint(
        good.replace(`${hash}\n`, `${hash}\n`.repeat(63 - good.split('\n').indexOf('') + 2)),
      ).ok,
    ).toEqual(true);
  });
});

describe('tlog-witness add-checkpoint: the decision', () => {
  it('200: cosigns a checkpoint consistent with the stored one, and gives the state to persist', () => {
    const answer = decide(request(100, 300), stateAt(100));
    if (answer.status !== 200) throw new Error(answer.body);
    expect(answer.contentType).toEqual('text/plain; charset=utf-8');
    expect(answer.body.startsWith('— witness.example/w1 ')).toEqual(true);
    expect(answer.body.endsWith('\n')).toEqual(true);
    expect(answer.state.size).toEqual(300n);
    expect(answer.state.root).toEqual(rootAt(300));
    // The stored checkpoint carries the log's signature and the witness's cosignature.
    const opened = openCheckpoint(answer.state.checkpoint, {
      origin: ORIGIN,
      logKeys: [log.verifierKey],
      witnessKeys: [witness.verifierKey],
    });
    expect(opened.ok && opened.value.verified.map((v) => [v.key.name, v.timestamp])).toEqual([
      [ORIGIN, undefined],
      ['witness.example/w1', NOW],
    ]);
  });

  it('200: from nothing stored with old size 0 and no proof, and again at the same size and root', () => {
    const first = decide(request(0, 300), undefined);
    expect(first.status).toEqual(200);
    const again = decide(request(300, 300), stateAt(300));
    expect(again.status).toEqual(200);
    const empty = decide(
      formatAddCheckpoint({
        oldSize: 0n,
        proof: [],
        checkpoint: signCheckpoint(
          { origin: ORIGIN, size: 0n, root: emptyRoot(), extensions: [] },
          [log],
        ),
      }),
      undefined,
    );
    expect(empty.status).toEqual(200);
  });

  it('404: an origin the witness has no key for', () => {
    const answer = decide(request(0, 300), undefined, []);
    expect(answer.status).toEqual(404);
  });

  it('403: no trusted signature, or a trusted one that fails', () => {
    const other = ed25519Signer(ORIGIN, new Uint8Array(32).fill(33));
    expect(decide(request(0, 300), undefined, [other.verifierKey]).status).toEqual(403);
    const body = request(0, 300);
    const line = body.split('\n').find((l) => l.startsWith('— '))!;
    const sig = line.split(' ')[2]!;
    const broken = body.replace(
      sig,
      `${sig.slice(0, 20)}${sig[20] === 'A' ? 'B' : 'A'}${sig.slice(21)}`,
    );
    expect(decide(broken, undefined).status).toEqual(403);
  });

  it('400: an old size above the checkpoint’s', () => {
    const body = formatAddCheckpoint({ oldSize: 301n, proof: [], checkpoint: checkpointAt(300) });
    expect(decide(body, stateAt(301)).status).toEqual(400);
  });

  it('409 with text/x.tlog.size: an old size that is not the stored one (0 when none)', () => {
    const stale = decide(request(100, 300), stateAt(200));
    expect(stale).toEqual({ status: 409, contentType: 'text/x.tlog.size', body: '200\n' });
    const unknown = decide(request(100, 300), undefined);
    expect(unknown).toEqual({ status: 409, contentType: 'text/x.tlog.size', body: '0\n' });
  });

  it('422: a size-0 checkpoint with another root, a proof from 0, a proof that fails, the same size with another root', () => {
    const zero = formatAddCheckpoint({
      oldSize: 0n,
      proof: [],
      checkpoint: signCheckpoint({ origin: ORIGIN, size: 0n, root: rootAt(1), extensions: [] }, [
        log,
      ]),
    });
    expect(decide(zero, undefined).status).toEqual(422);
    expect(decide(request(0, 300, [rootAt(1)]), undefined).status).toEqual(422);
    const proof = proveConsistency(100n, 300n, source, nodeBackend);
    const bad = proof.map((h, i) => (i === 0 ? h.map((b) => b ^ 1) : h));
    expect(decide(request(100, 300, bad), stateAt(100)).status).toEqual(422);
    expect(decide(request(100, 300, proof.slice(1)), stateAt(100)).status).toEqual(422);
    // The stored root is another tree's at the same size: the log forked.
    const forked: WitnessState = { ...stateAt(100), root: rootAt(99) };
    expect(decide(request(100, 300), forked).status).toEqual(422);
    expect(decide(request(300, 300), { ...stateAt(300), root: rootAt(299) }).status).toEqual(422);
    expect(decide(request(300, 300, [rootAt(1)]), stateAt(300)).status).toEqual(422);
  });

  it('the log adds the cosignatures of known witnesses to its checkpoint, and ignores the others', () => {
    const answer = decide(request(100, 300), stateAt(100));
    if (answer.status !== 200) throw new Error(answer.body);
    const stranger = cosigner('stranger.example', new Uint8Array(32).fill(34));
    const extra = stranger.cosign(checkpointAt(300).split('\n\n')[0]!.concat('\n'), NOW);
    const response = `${answer.body}— stranger.example ${Buffer.from([...Buffer.alloc(4), ...extra.signature]).toString('base64')}\n`;
    const added = addCosignatures(checkpointAt(300), response, [witness.verifierKey]);
    if (!added.ok) throw added.refusal;
    expect(added.value.cosignatures.map((c) => c.key.name)).toEqual(['witness.example/w1']);
    const opened = openCheckpoint(added.value.checkpoint, {
      origin: ORIGIN,
      logKeys: [log.verifierKey],
      witnessKeys: [witness.verifierKey],
    });
    expect(opened.ok && opened.value.verified.length).toEqual(2);
    // A cosignature of a known witness on another checkpoint fails.
    const wrong = addCosignatures(checkpointAt(301), answer.body, [witness.verifierKey]);
    expect(wrong.ok ? 'ok' : wrong.refusal.reason).toEqual('bad_signature');
    // Adding twice adds nothing more.
    const twice = addCosignatures(added.value.checkpoint, answer.body, [witness.verifierKey]);
    expect(twice.ok && twice.value.checkpoint).toEqual(added.value.checkpoint);
  });
});

describe('the monitoring path', () => {
  it('names a log by the lowercase hex SHA-256 of its origin', () => {
    expect(originHash(ORIGIN)).toEqual(createHash('sha256').update(ORIGIN).digest('hex'));
    expect(originHash('example.com/behind-the-sofa')).toMatch(/^[0-9a-f]{64}$/);
    expect(() => originHash('')).toThrow(TypeError);
  });
});
