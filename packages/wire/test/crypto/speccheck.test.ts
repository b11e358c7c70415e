import { readFileSync } from 'node:fs';
import { ed25519 } from '@noble/curves/ed25519.js';
import { describe, expect, it } from 'vitest';
import type { CryptoBackend, VerifyOutcome } from '../../src/crypto/backend.js';
import { nobleBackend } from '../../src/crypto/noble.js';
import { decodePointStrict, ED25519_L, isCanonicalY, leToBigint } from '../../src/crypto/strict.js';
import { fromHex } from '../../src/hex.js';
import { nodeBackend } from '../../src/node.js';
import { vectorPath } from '../helpers/vectors.js';

/**
 * novifinancial/ed25519-speccheck `cases.json`: twelve cases, numbered 0 to 11 in the order of
 * the file (the paper's and the README's numbering). Under C2 (libsodium's rules) exactly case 3
 * verifies (`test/vectors/README.md`). The outcome of each follows C2's first failing step:
 *
 * | case | what it is | C2 step | outcome |
 * |---|---|---|---|
 * | 0 | small-order A, small-order R, S = 0 | 2 | bad_key |
 * | 1 | small-order A, mixed-order R | 2 | bad_key |
 * | 2 | mixed-order A, small-order R | 3 | bad_signature |
 * | 3 | mixed-order A and R, both equations hold | — | ok |
 * | 4 | mixed-order A and R, only the cofactored equation holds | 5 | bad_signature |
 * | 5 | mixed-order A, only the cofactored equation holds | 5 | bad_signature |
 * | 6 | S > L (S − L would verify) | 4 | bad_signature |
 * | 7 | S ≫ L | 4 | bad_signature |
 * | 8 | non-canonical R: y = p − 1, so x = 0, with the sign bit set | 3 | bad_signature |
 * | 9 | the same R, another message | 3 | bad_signature |
 * | 10 | non-canonical A: y = p − 1, so x = 0, with the sign bit set | 1 | bad_key |
 * | 11 | the same A, another message | 1 | bad_key |
 *
 * (y < p holds in 8 to 11: their encodings are non-canonical by the sign bit of x = 0. The
 * point they would stand for, (0, −1), is of order 2, so libsodium refuses them by its
 * small-order list; C2 step 1 refuses them by "not x = 0 with the sign bit set".)
 */
interface Case {
  readonly message: string;
  readonly pub_key: string;
  readonly signature: string;
}

const cases = JSON.parse(
  readFileSync(vectorPath('ed25519-speccheck', 'cases.json'), 'utf8'),
) as readonly Case[];

const EXPECTED: readonly VerifyOutcome[] = [
  'bad_key',
  'bad_key',
  'bad_signature',
  'ok',
  'bad_signature',
  'bad_signature',
  'bad_signature',
  'bad_signature',
  'bad_signature',
  'bad_signature',
  'bad_key',
  'bad_key',
];

const BACKENDS: readonly CryptoBackend[] = [nobleBackend, nodeBackend];

describe('ed25519-speccheck cases', () => {
  it('holds twelve cases, numbered 0 to 11 in file order', () => {
    expect(cases.length).toBe(12);
  });

  it('are what the table says they are', () => {
    const point = (hex: string) => decodePointStrict(fromHex(hex));
    const smallOrder = (hex: string) => point(hex)?.isSmallOrder() === true;
    const mixedOrder = (hex: string) => {
      const p = point(hex);
      return p !== undefined && !p.isSmallOrder() && !p.isTorsionFree();
    };
    const c = (i: number) => cases[i]!;
    const r = (i: number) => c(i).signature.slice(0, 64);
    const s = (i: number) => leToBigint(fromHex(c(i).signature.slice(64)));
    expect(smallOrder(c(0).pub_key) && smallOrder(r(0)) && s(0) === 0n).toBe(true);
    expect(smallOrder(c(1).pub_key) && mixedOrder(r(1))).toBe(true);
    expect(mixedOrder(c(2).pub_key) && smallOrder(r(2))).toBe(true);
    for (const i of [3, 4]) expect(mixedOrder(c(i).pub_key) && mixedOrder(r(i))).toBe(true);
    expect(mixedOrder(c(5).pub_key)).toBe(true);
    expect(s(6) >= ED25519_L && s(7) >= ED25519_L).toBe(true);
    const minusOneWithSign = `ec${'ff'.repeat(31)}`;
    for (const i of [8, 9]) expect(r(i)).toBe(minusOneWithSign);
    for (const i of [10, 11]) expect(c(i).pub_key).toBe(minusOneWithSign);
    expect(isCanonicalY(fromHex(minusOneWithSign))).toBe(true);
    expect(point(minusOneWithSign)).toBeUndefined();
    // noble's ZIP 215 decoding takes it, as (0, −1): what C2 must not.
    expect(ed25519.Point.fromBytes(fromHex(minusOneWithSign), true).toAffine().x).toBe(0n);
    // Case 4 and 5 hold under the cofactored equation (noble's ed25519.verify, ZIP 215).
    for (const i of [3, 4, 5]) {
      const { message, pub_key, signature } = c(i);
      expect(ed25519.verify(fromHex(signature), fromHex(message), fromHex(pub_key))).toBe(true);
    }
  });

  for (const backend of BACKENDS) {
    it(`${backend.name}: exactly case 3 verifies, and each refusal is at C2's step`, () => {
      const got = cases.map((c) =>
        backend.verify(fromHex(c.pub_key), fromHex(c.message), fromHex(c.signature)),
      );
      expect(got).toEqual(EXPECTED);
      expect(got.filter((o) => o === 'ok').length).toBe(1);
    });
  }
});
