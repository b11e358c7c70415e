import { nodeBackend } from '@wai-steering/wire/node';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  cosigner,
  ed25519Signer,
  formatTlogProof,
  parseTlogProof,
  proveInclusion,
  rootOf,
  signCheckpoint,
  verifyTlogProof,
} from '../src/index.js';
import { entries } from './helpers/log.js';
import { mutate, mutation, runs } from './helpers/mutate.js';

const ORIGIN = 'steering.example/decisions';
const log = ed25519Signer(ORIGIN, new Uint8Array(32).fill(51), nodeBackend);
const witness = cosigner('witness.example/w1', new Uint8Array(32).fill(52), nodeBackend);
const all = entries(0, 700);
const leafHashes = all.map((e) => nodeBackend.sha256(Uint8Array.of(0, ...e)));
const subtree = (level: number, index: bigint) => {
  const start = Number(index) << level;
  return rootOf(leafHashes.slice(start, start + (1 << level)), nodeBackend);
};
const checkpoints = new Map<number, string>();
const checkpointAt = (n: number) => {
  let c = checkpoints.get(n);
  if (c === undefined) {
    const root = rootOf(leafHashes.slice(0, n), nodeBackend);
    c = signCheckpoint({ origin: ORIGIN, size: BigInt(n), root, extensions: [] }, [
      log,
      witness.signerAt(1_767_225_600n),
    ]);
    checkpoints.set(n, c);
  }
  return c;
};
const proofArb = fc
  .integer({ min: 1, max: 700 })
  .chain((n) =>
    fc.tuple(
      fc.constant(n),
      fc.integer({ min: 0, max: n - 1 }),
      fc.option(fc.uint8Array({ maxLength: 40 }), { nil: undefined }),
    ),
  );
const options = {
  origin: ORIGIN,
  logKeys: [log.verifierKey],
  witnessKeys: [witness.verifierKey],
  backend: nodeBackend,
};

function proofText(n: number, i: number, extra: Uint8Array | undefined): string {
  return formatTlogProof({
    ...(extra === undefined ? {} : { extra }),
    index: BigInt(i),
    inclusion: proveInclusion(BigInt(i), BigInt(n), subtree, nodeBackend),
    checkpoint: checkpointAt(n),
  });
}

describe('tlog proofs: round trips and mutations', () => {
  it('read back what they write, and verify', () => {
    fc.assert(
      fc.property(proofArb, ([n, i, extra]) => {
        const text = proofText(n, i, extra);
        const read = parseTlogProof(text);
        if (!read.ok) throw read.refusal;
        expect(formatTlogProof(read.value)).toEqual(text);
        const verified = verifyTlogProof(read.value, { ...options, entry: all[i]! });
        expect(verified.ok && verified.value.cosignatures.length).toEqual(1);
      }),
      { numRuns: runs(200, true) },
    );
  });

  it('never verify anything but what the log and the witness signed, once changed by one character', () => {
    fc.assert(
      fc.property(proofArb, mutation, ([n, i, extra], m) => {
        const changed = mutate(proofText(n, i, extra), m);
        if (changed === undefined) return;
        const verified = verifyTlogProof(changed, { ...options, entry: all[i]! });
        if (!verified.ok) return;
        // A change can pass only where it proves nothing false: in the extra data (never
        // authenticated), or in a signature line's name or key ID (that signature is then an
        // unknown key's, ignored).
        expect(verified.value.index).toEqual(BigInt(i));
        expect(verified.value.checkpoint.size).toEqual(BigInt(n));
        expect(verified.value.checkpoint.root).toEqual(rootOf(leafHashes.slice(0, n), nodeBackend));
        for (const c of verified.value.cosignatures) {
          expect([c.name, c.timestamp]).toEqual(['witness.example/w1', 1_767_225_600n]);
        }
      }),
      { numRuns: runs(1000, true) },
    );
  });
});
