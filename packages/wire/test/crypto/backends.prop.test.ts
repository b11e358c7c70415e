import type { EdwardsPoint } from '@noble/curves/abstract/edwards.js';
import { ed25519 } from '@noble/curves/ed25519.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { VerifyOutcome } from '../../src/crypto/backend.js';
import { nobleBackend } from '../../src/crypto/noble.js';
import {
  challenge,
  decodePointStrict,
  ED25519_L,
  ED25519_P,
  isCanonicalY,
  isSmallOrderEncoding,
  preCheckSignature,
} from '../../src/crypto/strict.js';
import { nodeBackend } from '../../src/node.js';

/**
 * Properties: the node backend (pre-checks, then OpenSSL) and the noble backend (C2 steps 1 to
 * 5 literally) give the same bytes and the same outcomes, on good and on hostile inputs.
 * FUZZ_RUNS sets the number of runs (default 2000). The properties that sign and verify good
 * signatures with noble's bigint arithmetic (a few ms a run) run a tenth of that, or
 * FUZZ_RUNS_HEAVY.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 2000);
const HEAVY = Number(process.env.FUZZ_RUNS_HEAVY ?? Math.max(1, Math.floor(RUNS / 10)));
const Point = ed25519.Point;

function le32(n: bigint): Uint8Array {
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) {
    out[i] = Number(n & 0xffn);
    n >>= 8n;
  }
  return out;
}
function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
function withSign(bytes: Uint8Array): Uint8Array {
  const out = bytes.slice();
  out[31]! ^= 0x80;
  return out;
}

/** The 8 points of small order: multiples of a point of order 8. */
const T8 = Point.fromBytes(
  Uint8Array.from(
    Buffer.from('26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05', 'hex'),
  ),
);
const TORSION: readonly EdwardsPoint[] = Array.from({ length: 8 }, (_, i) =>
  T8.multiplyUnsafe(BigInt(i)),
);
const TORSION_BYTES = TORSION.map((t) => t.toBytes());

/** Encodings every strict verifier must take care with. */
const SPECIAL: readonly Uint8Array[] = [
  ...TORSION_BYTES,
  ...TORSION_BYTES.map(withSign), // includes x = 0 with the sign bit (y = 1, y = p − 1)
  // Non-canonical: y + p for y = 0 to 18 (all below 2^255), either sign.
  ...Array.from({ length: 19 }, (_, y) => le32(ED25519_P + BigInt(y))),
  ...Array.from({ length: 19 }, (_, y) => withSign(le32(ED25519_P + BigInt(y)))),
  new Uint8Array(32).fill(0xff),
  le32(2n), // y = 2 is not on the curve
  Point.BASE.toBytes(),
  // Mixed order: B + T for each T of small order.
  ...TORSION.map((t) => Point.BASE.add(t).toBytes()),
];

const bytes32 = fc.uint8Array({ minLength: 32, maxLength: 32 });
const message = fc.uint8Array({ maxLength: 160 });
const special = fc.constantFrom(...SPECIAL);
const validKey = bytes32.map((s) => nobleBackend.publicKey(s));
const key32 = fc.oneof(bytes32, special, validKey);
const scalarBytes = fc.oneof(
  bytes32,
  fc.bigInt({ min: 0n, max: ED25519_L - 1n }).map(le32),
  fc.constantFrom(0n, 1n, ED25519_L - 1n, ED25519_L, ED25519_L + 1n, (1n << 256n) - 1n).map(le32),
  fc.bigInt({ min: ED25519_L, max: (1n << 256n) - 1n }).map(le32),
);
const rBytes = fc.oneof(bytes32, special, validKey);
const sig64 = fc.tuple(rBytes, scalarBytes).map(([r, s]) => concat(r, s));
/** Any length near 64, mostly 64. */
const sigAny = fc.oneof(
  { weight: 6, arbitrary: sig64 },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 70 }) },
);

function both(pk: Uint8Array, msg: Uint8Array, sig: Uint8Array): VerifyOutcome {
  const a = nobleBackend.verify(pk, msg, sig);
  const b = nodeBackend.verify(pk, msg, sig);
  expect(b, 'node and noble disagree').toBe(a);
  return a;
}

describe('backends agree', () => {
  it('on signing, public keys and verification of their own signatures', () => {
    fc.assert(
      fc.property(bytes32, message, (secret, msg) => {
        const pk = nobleBackend.publicKey(secret);
        expect(nodeBackend.publicKey(secret)).toEqual(pk);
        const sig = nobleBackend.sign(secret, msg);
        expect(nodeBackend.sign(secret, msg)).toEqual(sig);
        expect(both(pk, msg, sig)).toBe('ok');
        // noble's own verification (cofactored, RFC 8032 decoding) takes them too.
        expect(ed25519.verify(sig, msg, pk, { zip215: false })).toBe(true);
      }),
      { numRuns: HEAVY },
    );
  });

  it('on signatures with one byte changed', () => {
    fc.assert(
      fc.property(
        bytes32,
        message,
        fc.integer({ min: 0, max: 63 }),
        fc.integer({ min: 1, max: 255 }),
        (secret, msg, at, x) => {
          const pk = nobleBackend.publicKey(secret);
          const sig = nodeBackend.sign(secret, msg);
          sig[at]! ^= x;
          expect(both(pk, msg, sig)).toBe('bad_signature');
        },
      ),
      { numRuns: HEAVY },
    );
  });

  it('on keys and messages with one byte changed', () => {
    fc.assert(
      fc.property(
        bytes32,
        fc.uint8Array({ minLength: 1, maxLength: 100 }),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        fc.boolean(),
        (secret, msg, at, x, inKey) => {
          const pk = nobleBackend.publicKey(secret);
          const sig = nobleBackend.sign(secret, msg);
          if (inKey) pk[at % 32]! ^= x;
          else msg[at % msg.length]! ^= x;
          expect(both(pk, msg, sig)).not.toBe('ok');
        },
      ),
      { numRuns: HEAVY },
    );
  });

  it('on garbage, small-order and non-canonical keys and signatures', () => {
    fc.assert(
      fc.property(key32, message, sigAny, (pk, msg, sig) => {
        both(pk, msg, sig);
      }),
      { numRuns: RUNS },
    );
  });

  it('on keys of the wrong length (bad_key before anything about the signature)', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 40 }).filter((k) => k.length !== 32),
        message,
        sigAny,
        (pk, msg, sig) => {
          expect(both(pk, msg, sig)).toBe('bad_key');
        },
      ),
      { numRuns: Math.min(RUNS, 500) },
    );
  });

  /**
   * Signatures built with torsion on purpose: A = aB + T_A, R = rB + T_R, S = r + k·a mod L.
   * Then [S]B − [k]A = rB − [k]T_A, which is R exactly when T_R = −[k]T_A: the cofactorless
   * equation accepts those and refuses the rest (which the cofactored one would accept).
   */
  it('on signatures with mixed-order A and R (the cofactorless equation)', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: ED25519_L - 1n }),
        fc.bigInt({ min: 1n, max: ED25519_L - 1n }),
        fc.integer({ min: 0, max: 7 }),
        fc.integer({ min: 0, max: 7 }),
        message,
        (a, r, ta, tr, msg) => {
          const TA = TORSION[ta]!;
          const TR = TORSION[tr]!;
          const A = Point.BASE.multiply(a).add(TA);
          const R = Point.BASE.multiply(r).add(TR);
          const pk = A.toBytes();
          const rb = R.toBytes();
          const k = challenge(rb, pk, msg);
          const S = (r + k * a) % ED25519_L;
          const sig = concat(rb, le32(S));
          const expected = R.equals(Point.BASE.multiply(r).subtract(TA.multiplyUnsafe(k)))
            ? 'ok'
            : 'bad_signature';
          expect(both(pk, msg, sig)).toBe(expected);
          // Whatever the torsion, the cofactored equation holds: noble's ZIP 215 verify says yes.
          expect(ed25519.verify(sig, msg, pk)).toBe(true);
        },
      ),
      { numRuns: HEAVY },
    );
  });
});

describe('the cheap pre-checks are C2 steps 3 and 4', () => {
  it('the small-order list is exactly the encodings of the 8 points of small order', () => {
    const distinct = [...new Map(SPECIAL.map((e) => [Buffer.from(e).toString('hex'), e])).values()];
    const listed = distinct.filter((e) => isCanonicalY(e) && isSmallOrderEncoding(e));
    // 8 canonical encodings of small-order points, and 2 of x = 0 with the sign bit.
    expect(listed.length).toBe(10);
    for (const e of listed) {
      const p = decodePointStrict(e);
      if (p === undefined) {
        expect(e[31]! & 0x80).toBe(0x80);
        expect(Point.fromBytes(e, true).toAffine().x).toBe(0n);
      } else {
        expect(p.isSmallOrder()).toBe(true);
      }
    }
    for (const t of TORSION_BYTES) expect(isSmallOrderEncoding(t)).toBe(true);
    expect(new Set(TORSION_BYTES.map((t) => Buffer.from(t).toString('hex'))).size).toBe(8);
  });

  it('differ from the literal step 3 only on an R off the curve (which step 5 refuses)', () => {
    fc.assert(
      fc.property(rBytes, (r) => {
        const literal = (() => {
          const p = decodePointStrict(r);
          return p !== undefined && !p.isSmallOrder();
        })();
        const cheap = isCanonicalY(r) && !isSmallOrderEncoding(r);
        if (literal) expect(cheap).toBe(true);
        if (cheap && !literal) {
          // Not a point at all: even noble's lenient decoding refuses it.
          expect(() => Point.fromBytes(r, true)).toThrow();
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('S < L is the byte comparison', () => {
    fc.assert(
      fc.property(scalarBytes, (s) => {
        let n = 0n;
        for (let i = 31; i >= 0; i--) n = (n << 8n) | BigInt(s[i]!);
        const sig = concat(Point.BASE.multiply(3n).toBytes(), s);
        expect(preCheckSignature(sig) === 'ok').toBe(n < ED25519_L);
      }),
      { numRuns: RUNS },
    );
  });
});
