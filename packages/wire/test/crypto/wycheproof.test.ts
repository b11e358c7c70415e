import { readFileSync } from 'node:fs';
import { ed25519 } from '@noble/curves/ed25519.js';
import { describe, expect, it } from 'vitest';
import type { CryptoBackend } from '../../src/crypto/backend.js';
import { nobleBackend } from '../../src/crypto/noble.js';
import { fromHex } from '../../src/hex.js';
import { nodeBackend } from '../../src/node.js';
import { vectorPath } from '../helpers/vectors.js';

/**
 * Wycheproof `ed25519_test.json` (C2SP/wycheproof, testvectors_v1): every `valid` case verifies
 * (`ok`), every `invalid` one is refused, on both backends. The file holds no `acceptable` case;
 * should a later copy hold one, this test fails on it, so that someone decides what C2 says of it
 * (C2 is a rule with one answer, not a range of tolerated behaviours).
 */
interface Test {
  readonly tcId: number;
  readonly comment: string;
  readonly flags: readonly string[];
  readonly msg: string;
  readonly sig: string;
  readonly result: 'valid' | 'invalid' | 'acceptable';
}
interface Group {
  readonly publicKey: { readonly pk: string };
  readonly tests: readonly Test[];
}
interface Suite {
  readonly algorithm: string;
  readonly numberOfTests: number;
  readonly testGroups: readonly Group[];
}

const suite = JSON.parse(
  readFileSync(vectorPath('wycheproof', 'ed25519_test.json'), 'utf8'),
) as Suite;
const cases = suite.testGroups.flatMap((g) => g.tests.map((t) => ({ pk: g.publicKey.pk, t })));
const BACKENDS: readonly CryptoBackend[] = [nobleBackend, nodeBackend];

describe('Wycheproof Ed25519', () => {
  it('reads the whole file', () => {
    expect(suite.algorithm).toBe('EDDSA');
    expect(cases.length).toBe(suite.numberOfTests);
    expect(cases.filter((c) => c.t.result === 'acceptable')).toEqual([]);
    expect(cases.filter((c) => c.t.result === 'valid').length).toBeGreaterThan(0);
    expect(cases.filter((c) => c.t.result === 'invalid').length).toBeGreaterThan(0);
  });

  for (const backend of BACKENDS) {
    it(`${backend.name}: valid verifies, invalid is refused`, () => {
      const wrong: string[] = [];
      for (const { pk, t } of cases) {
        const outcome = backend.verify(fromHex(pk), fromHex(t.msg), fromHex(t.sig));
        const expected = t.result === 'valid' ? 'ok' : 'refused';
        const got = outcome === 'ok' ? 'ok' : 'refused';
        if (got !== expected) wrong.push(`tcId ${t.tcId} (${t.comment}): ${outcome}`);
        // Every key of the file is a good key: a refusal is always at the signature.
        if (outcome !== 'ok') expect(outcome, `tcId ${t.tcId}`).toBe('bad_signature');
      }
      expect(wrong).toEqual([]);
    });
  }

  it('agrees with noble ed25519.verify (zip215: false) on the valid cases', () => {
    for (const { pk, t } of cases) {
      if (t.result !== 'valid') continue;
      expect(ed25519.verify(fromHex(t.sig), fromHex(t.msg), fromHex(pk), { zip215: false })).toBe(
        true,
      );
    }
  });
});
