import { createRequire } from 'node:module';
import { nobleBackend } from '@wai-steering/wire';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ed25519SigningKey } from '../src/ed25519.js';

/** Whether `sodium-native` loads here, asked apart from the code under test. */
function sodiumLoads(): boolean {
  try {
    createRequire(import.meta.url)('sodium-native');
    return true;
  } catch {
    return false;
  }
}

const seed = fc.uint8Array({ minLength: 32, maxLength: 32 });
const message = fc.uint8Array({ maxLength: 4096 });

describe('ed25519SigningKey', () => {
  it('signs on libsodium where it loads, else on OpenSSL', () => {
    // An optional dependency: installed with the workspace on the platforms it has a binary for.
    expect(ed25519SigningKey(new Uint8Array(32).fill(3)).provider).toBe(
      sodiumLoads() ? 'libsodium' : 'openssl',
    );
  });

  it("stays on OpenSSL when asked to (the comparison's other side)", () => {
    expect(ed25519SigningKey(new Uint8Array(32).fill(3), { prefer: 'openssl' }).provider).toBe(
      'openssl',
    );
  });

  it("gives noble's public key and signature, with both, for any key and message", () => {
    fc.assert(
      fc.property(seed, message, (sk, m) => {
        const expected = nobleBackend.sign(sk, m);
        for (const key of [ed25519SigningKey(sk), ed25519SigningKey(sk, { prefer: 'openssl' })]) {
          expect(key.publicKey).toEqual(nobleBackend.publicKey(sk));
          expect(new Uint8Array(key.sign(m))).toEqual(expected);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('signs a message that is a view into a larger buffer (the encoder signs in place)', () => {
    const sk = new Uint8Array(32).fill(9);
    const buffer = new Uint8Array(2048).map((_, i) => i & 255);
    const view = buffer.subarray(100, 1594);
    expect(new Uint8Array(ed25519SigningKey(sk).sign(view))).toEqual(
      nobleBackend.sign(sk, view.slice()),
    );
  });

  it('refuses a secret key that is not 32 bytes (caller misuse)', () => {
    expect(() => ed25519SigningKey(new Uint8Array(31))).toThrow(TypeError);
    expect(() => ed25519SigningKey('x' as unknown as Uint8Array)).toThrow(TypeError);
  });
});
