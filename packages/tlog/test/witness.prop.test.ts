import { nodeBackend } from '@wai-steering/wire/node';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  cosigner,
  decideAddCheckpoint,
  ed25519Signer,
  formatAddCheckpoint,
  parseAddCheckpoint,
  proveConsistency,
  rootOf,
  signCheckpoint,
} from '../src/index.js';
import { entries } from './helpers/log.js';
import { mutate, mutation, runs } from './helpers/mutate.js';

const ORIGIN = 'steering.example/decisions';
const log = ed25519Signer(ORIGIN, new Uint8Array(32).fill(61), nodeBackend);
const witness = cosigner('witness.example/w1', new Uint8Array(32).fill(62), nodeBackend);
const leafHashes = entries(0, 700).map((e) => nodeBackend.sha256(Uint8Array.of(0, ...e)));
const roots = new Map<number, Uint8Array>();
const rootAt = (n: number) => {
  let r = roots.get(n);
  if (r === undefined) {
    r = rootOf(leafHashes.slice(0, n), nodeBackend);
    roots.set(n, r);
  }
  return r;
};
const subtree = (level: number, index: bigint) => {
  const start = Number(index) << level;
  return rootOf(leafHashes.slice(start, start + (1 << level)), nodeBackend);
};
const sizes = fc
  .tuple(fc.integer({ min: 0, max: 700 }), fc.integer({ min: 0, max: 700 }))
  .map(([a, b]): [number, number] => (a <= b ? [a, b] : [b, a]));

function body(m: number, n: number): string {
  return formatAddCheckpoint({
    oldSize: BigInt(m),
    proof: proveConsistency(BigInt(m), BigInt(n), subtree, nodeBackend),
    checkpoint: signCheckpoint(
      { origin: ORIGIN, size: BigInt(n), root: rootAt(n), extensions: [] },
      [log],
    ),
  });
}

function decide(text: string, m: number): number {
  const req = parseAddCheckpoint(text);
  if (!req.ok) return 400;
  return decideAddCheckpoint(req.value, {
    logKeys: [log.verifierKey],
    state: m === 0 ? undefined : { size: BigInt(m), root: rootAt(m), checkpoint: '' },
    cosigners: [witness],
    timestamp: 1n,
    backend: nodeBackend,
  }).status;
}

describe('add-checkpoint bodies: round trips and mutations', () => {
  it('read back what they write, and are cosigned when consistent with the stored size', () => {
    fc.assert(
      fc.property(sizes, ([m, n]) => {
        const text = body(m, n);
        const read = parseAddCheckpoint(text);
        if (!read.ok) throw read.refusal;
        expect(formatAddCheckpoint(read.value)).toEqual(text);
        expect(decide(text, m)).toEqual(200);
      }),
      { numRuns: runs(200, true) },
    );
  });

  it('never get a cosignature once changed by one character', () => {
    fc.assert(
      fc.property(sizes, mutation, ([m, n], change) => {
        const changed = mutate(body(m, n), change);
        if (changed === undefined) return;
        expect(decide(changed, m)).not.toEqual(200);
      }),
      { numRuns: runs(1000, true) },
    );
  });
});
