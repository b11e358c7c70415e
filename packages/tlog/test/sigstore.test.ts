// A cross-check against an implementation this package did not write: sigstore-js
// (`@sigstore/verify`, its transparency-log checkpoint and Merkle inclusion code), both ways.
//
// `@sigstore/verify` has no `exports` map, so its modules are reachable by path:
// `dist/tlog/checkpoint.js` (`verifyCheckpoint`, which reads a signed note and verifies it with a
// log's key) and `dist/tlog/merkle.js` (`verifyMerkleInclusion`, RFC 6962 inclusion of an entry's
// body in the checkpoint's tree). Version 3.1.1 is the newest whose engines take Node 20.
import { createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { verifyCheckpoint } from '@sigstore/verify/dist/tlog/checkpoint.js';
import { verifyMerkleInclusion } from '@sigstore/verify/dist/tlog/merkle.js';
import { nodeBackend } from '@wai-steering/wire/node';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ed25519Signer,
  formatTlogProof,
  leafHash,
  openCheckpoint,
  parseVerifierKey,
  signCheckpoint,
  TileHashReader,
  verifierKey,
  verifyInclusion,
  verifyTlogProof,
} from '../src/index.js';
import { buildLog, entries, prefixFetcher } from './helpers/log.js';

const ORIGIN = 'steering.example/decisions';
const log = ed25519Signer(ORIGIN, new Uint8Array(32).fill(11), nodeBackend);

function nodeKey(publicKey: Uint8Array): KeyObject {
  return createPublicKey({
    key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), publicKey]),
    format: 'der',
    type: 'spki',
  });
}

/** sigstore's view of our log: a transparency log authority whose log ID begins with our key ID. */
const logID = Buffer.alloc(32);
logID.writeUInt32BE(log.keyId, 0);
const tlogs = [
  {
    logID,
    publicKey: nodeKey(log.verifierKey.publicKey),
    baseURL: `https://${ORIGIN}`,
    validFor: { start: new Date(0), end: new Date(8.64e15) },
  },
];

type SigstoreEntry = Parameters<typeof verifyMerkleInclusion>[0];

function sigstoreEntry(
  body: Uint8Array,
  index: bigint,
  proof: readonly Uint8Array[],
  envelope: string,
): SigstoreEntry {
  return {
    canonicalizedBody: Buffer.from(body),
    inclusionProof: {
      logIndex: index.toString(),
      hashes: proof.map((h) => Buffer.from(h)),
      checkpoint: { envelope },
    },
  } as unknown as SigstoreEntry;
}

function sigstoreAccepts(entry: SigstoreEntry): string {
  try {
    const checkpoint = verifyCheckpoint(entry as never, tlogs as never);
    verifyMerkleInclusion(entry, checkpoint);
    return 'ok';
  } catch (e) {
    return (e as { code?: string }).code ?? String(e);
  }
}

const SIZE = 5_000;
const built = buildLog(SIZE);
const all = entries(0, SIZE);

describe('our checkpoints and inclusion proofs, verified by sigstore-js', () => {
  const signed = signCheckpoint(
    { origin: ORIGIN, size: BigInt(SIZE), root: built.result.root, extensions: [] },
    [log],
  );
  const reader = new TileHashReader(
    { size: BigInt(SIZE), root: built.result.root },
    prefixFetcher(built.store),
    {
      backend: nodeBackend,
    },
  );

  it('reads our signed checkpoint as we wrote it (origin, size, root) and verifies its signature', () => {
    const checkpoint = verifyCheckpoint(
      sigstoreEntry(all[0]!, 0n, [], signed) as never,
      tlogs as never,
    );
    expect({
      origin: checkpoint.origin,
      size: checkpoint.logSize,
      root: Buffer.from(checkpoint.logHash).toString('hex'),
    }).toEqual({
      origin: ORIGIN,
      size: BigInt(SIZE),
      root: Buffer.from(built.result.root).toString('hex'),
    });
  });

  it('verifies our inclusion proofs of every kind of leaf position, and refuses them changed, as we do', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: SIZE - 1 }), fc.nat(), async (i, mutation) => {
        const index = BigInt(i);
        const proof = await reader.inclusionProof(index);
        expect(sigstoreAccepts(sigstoreEntry(all[i]!, index, proof, signed))).toEqual('ok');
        // One change, which both must refuse: a flipped bit, a dropped or an extra hash, another index.
        const changed = proof.map((h) => h.slice());
        const kind = mutation % 4;
        let at = index;
        if (kind === 0) changed[mutation % changed.length]![mutation % 32]! ^= 1 << (mutation % 8);
        if (kind === 1) changed.pop();
        if (kind === 2) changed.push(new Uint8Array(32));
        if (kind === 3) at = (index + 1n + BigInt(mutation % (SIZE - 1))) % BigInt(SIZE);
        const theirs = sigstoreAccepts(sigstoreEntry(all[i]!, at, changed, signed));
        const ours = verifyInclusion({
          leafHash: leafHash(all[i]!),
          index: at,
          size: BigInt(SIZE),
          proof: changed,
          root: built.result.root,
        });
        expect({ theirs, ours: ours?.reason }).toEqual({
          theirs: 'TLOG_INCLUSION_PROOF_ERROR',
          ours: 'bad_proof',
        });
      }),
      { numRuns: 200 },
    );
  });

  it('refuses our checkpoint with another key, as we do', () => {
    const other = ed25519Signer(ORIGIN, new Uint8Array(32).fill(12), nodeBackend);
    const forged = signCheckpoint(
      { origin: ORIGIN, size: BigInt(SIZE), root: built.result.root, extensions: [] },
      [other],
    );
    expect(sigstoreAccepts(sigstoreEntry(all[0]!, 0n, [], forged))).toEqual(
      'TLOG_INCLUSION_PROOF_ERROR',
    );
    const ours = openCheckpoint(forged, { origin: ORIGIN, logKeys: [log.verifierKey] });
    expect(ours.ok ? 'ok' : ours.refusal.reason).toEqual('unverified');
  });
});

describe('sigstore’s Rekor checkpoints and inclusion proofs, verified by this package', () => {
  // Vendored from sigstore-js: see test/vectors/README.md.
  const vectors = JSON.parse(
    readFileSync(new URL('./vectors/sigstore-rekor.json', import.meta.url), 'utf8'),
  ) as {
    rekorV1: {
      logIndex: string;
      treeSize: string;
      rootHash: string;
      hashes: string[];
      canonicalizedBody: string;
    };
    rekorV2: {
      logIndex: string;
      treeSize: string;
      rootHash: string;
      hashes: string[];
      checkpoint: string;
      canonicalizedBody: string;
    }[];
  };
  const b64 = (s: string) => new Uint8Array(Buffer.from(s, 'base64'));
  // Rekor v2's log key, log2025-1.rekor.sigstore.dev, from sigstore-js's trusted root fixture
  // (an RFC 8410 SPKI: the key is its last 32 bytes). Its note key ID is signed-note's.
  const rekorKey = verifierKey(
    'log2025-1.rekor.sigstore.dev',
    1,
    b64('MCowBQYDK2VwAyEAt8rlp1knGwjfbcXAYPYAkn0XiLz1x8O4t0YkEhie244=').subarray(12),
  );

  it('computes the key ID Rekor v2 signs with (cf119915), and reads back its vkey', () => {
    expect(rekorKey.keyId.toString(16)).toEqual('cf119915');
    const read = parseVerifierKey(
      `log2025-1.rekor.sigstore.dev+cf119915+${Buffer.from([1, ...rekorKey.publicKey]).toString('base64')}`,
    );
    expect(read.ok && read.value).toEqual(rekorKey);
  });

  it('opens Rekor v2 checkpoints, and verifies their entries’ inclusion, also as tlog proofs', () => {
    expect(vectors.rekorV2.length).toEqual(2);
    for (const v of vectors.rekorV2) {
      const opened = openCheckpoint(v.checkpoint, {
        origin: 'log2025-1.rekor.sigstore.dev',
        logKeys: [rekorKey],
      });
      if (!opened.ok) throw opened.refusal;
      expect(opened.value.checkpoint.size).toEqual(BigInt(v.treeSize));
      expect(Buffer.from(opened.value.checkpoint.root).toString('base64')).toEqual(v.rootHash);
      const body = b64(v.canonicalizedBody);
      const input = {
        leafHash: leafHash(body),
        index: BigInt(v.logIndex),
        size: BigInt(v.treeSize),
        proof: v.hashes.map(b64),
        root: opened.value.checkpoint.root,
      };
      expect(verifyInclusion(input)).toBeUndefined();
      expect(verifyInclusion({ ...input, index: input.index - 1n })?.reason).toEqual('bad_proof');
      const proof = formatTlogProof({
        index: input.index,
        inclusion: input.proof,
        checkpoint: v.checkpoint,
      });
      const verified = verifyTlogProof(proof, {
        entry: body,
        origin: 'log2025-1.rekor.sigstore.dev',
        logKeys: [rekorKey],
      });
      expect(verified.ok && verified.value.index).toEqual(input.index);
      const tampered = verifyTlogProof(proof, {
        entry: body.subarray(1),
        origin: 'log2025-1.rekor.sigstore.dev',
        logKeys: [rekorKey],
      });
      expect(tampered.ok ? 'ok' : tampered.refusal.reason).toEqual('bad_proof');
    }
  });

  it('verifies a Rekor v1 entry’s inclusion proof (21 hashes, a tree of 21,476,367)', () => {
    const v = vectors.rekorV1;
    const input = {
      leafHash: leafHash(b64(v.canonicalizedBody)),
      index: BigInt(v.logIndex),
      size: BigInt(v.treeSize),
      proof: v.hashes.map(b64),
      root: b64(v.rootHash),
    };
    expect(input.proof.length).toEqual(21);
    expect(verifyInclusion(input)).toBeUndefined();
    expect(verifyInclusion({ ...input, size: input.size * 2n })?.reason).toEqual('bad_proof');
    expect(verifyInclusion({ ...input, proof: input.proof.slice(0, 20) })?.reason).toEqual(
      'bad_proof',
    );
  });
});
