// For the bench alone, for one run: the session MAC on the hand-written compression, to measure
// the steering server with it against the library's in the same rounds (`bench/server.bench.mjs`).
/**
 * Sessions the server minted (§8.1 `wai_session`): 16 bytes, the first 8 random, the last 8 the
 * first 8 bytes of HMAC-SHA-256 under the server's session secret over the first 8. A session
 * that fails the check was not minted by a server holding the secret: it is treated as absent
 * (a new one is minted, as for a malformed one), so that forged sessions never count in the
 * loads that decisions state (§6).
 *
 * The draw (§6.3) hashes the whole 16-byte session; HMAC's output is indistinguishable from
 * random bytes to whoever lacks the secret, so a minted session is as uniform as 16 random bytes
 * for everyone but the server (see `docs/server.md`, *Sessions and the draw*).
 */
import { hash, randomBytes, randomFillSync } from 'node:crypto';
import { compress, SHA256_IV, wordAt } from './sha256-block.js';

/** The bytes of a session. */
const SESSION_BYTES = 16;
const NONCE = 8;
/** SHA-256's block size (RFC 2104's B). */
const BLOCK = 64;
/** Random nonces are drawn this many bytes at a time (one syscall for 512 sessions). */
const POOL = 4096;
/** The bit lengths of the inner message (K ⊕ ipad ‖ nonce) and the outer (K ⊕ opad ‖ inner hash). */
const INNER_BITS = (BLOCK + NONCE) * 8;
const OUTER_BITS = (BLOCK + 32) * 8;

/** Mints and checks sessions under one secret (shared by the instances of a deployment). */
export class HandSessionMac {
  /**
   * RFC 2104 with SHA-256: the states after the blocks (K ⊕ ipad) and (K ⊕ opad), compressed
   * once, so that a tag is two compressions (`sha256-block.ts`) and allocates nothing.
   */
  private readonly inner = new Int32Array(8);
  private readonly outer = new Int32Array(8);
  private readonly w = new Int32Array(64);
  private readonly h = new Int32Array(8);
  private readonly pool = Buffer.alloc(POOL);
  private used = POOL;

  /** `secret`: at least 16 bytes; a fresh random one (this process only) when absent. */
  constructor(secret?: Uint8Array) {
    if (secret !== undefined && secret.length < 16) {
      throw new TypeError('SessionMac: the secret is at least 16 bytes');
    }
    let key: Uint8Array = secret === undefined ? randomBytes(32) : Buffer.from(secret);
    // RFC 2104 §2: a key longer than the block is hashed first; shorter ones are zero-padded.
    if (key.length > BLOCK) key = hash('sha256', key, 'buffer');
    const padded = new Uint8Array(BLOCK);
    padded.set(key);
    for (const [pad, state] of [
      [0x36, this.inner],
      [0x5c, this.outer],
    ] as const) {
      for (let i = 0; i < 16; i++) {
        this.w[i] = wordAt(padded, 4 * i) ^ (pad * 0x01010101);
      }
      compress(SHA256_IV, this.w, state);
    }
    padded.fill(0);
  }

  /**
   * HMAC-SHA-256 (RFC 2104) of the 8-byte nonce at `bytes[at..at + 8)`, truncated to 8 bytes:
   * its two big-endian words, left in `this.h[0]` and `this.h[1]`. Tested against `createHmac`
   * (`test/guard/session-mac.test.ts`).
   */
  private tag(bytes: Uint8Array, at: number): void {
    const w = this.w;
    const h = this.h;
    // The inner hash: (K ⊕ ipad) is compressed already; the block is the nonce and its padding.
    w[0] = wordAt(bytes, at);
    w[1] = wordAt(bytes, at + 4);
    w[2] = 0x80000000 | 0;
    for (let i = 3; i < 15; i++) w[i] = 0;
    w[15] = INNER_BITS;
    compress(this.inner, w, h);
    // The outer hash: (K ⊕ opad) is compressed already; the block is the inner hash, padded.
    for (let i = 0; i < 8; i++) w[i] = h[i]!;
    w[8] = 0x80000000 | 0;
    for (let i = 9; i < 15; i++) w[i] = 0;
    w[15] = OUTER_BITS;
    compress(this.outer, w, h);
  }

  /** Writes the session of the nonce at `out[0..8)`: its tag at `out[8..16)`. */
  private seal(out: Uint8Array): Uint8Array {
    this.tag(out, 0);
    const h = this.h;
    for (let k = 0; k < 2; k++) {
      const v = h[k]!;
      out[NONCE + 4 * k] = v >>> 24;
      out[NONCE + 4 * k + 1] = v >>> 16;
      out[NONCE + 4 * k + 2] = v >>> 8;
      out[NONCE + 4 * k + 3] = v;
    }
    return out;
  }

  /** The session of `nonce` (8 bytes): the nonce, then its tag. */
  sessionOf(nonce: Uint8Array): Uint8Array {
    if (nonce.length !== NONCE) throw new TypeError('SessionMac: a nonce is 8 bytes');
    const out = new Uint8Array(SESSION_BYTES);
    out.set(nonce, 0);
    return this.seal(out);
  }

  /** A new session: 8 random bytes (from a pool refilled by the CSPRNG) and their tag. */
  mint(): Uint8Array {
    if (this.used + NONCE > POOL) {
      randomFillSync(this.pool);
      this.used = 0;
    }
    const out = new Uint8Array(SESSION_BYTES);
    const pool = this.pool;
    const u = this.used;
    for (let k = 0; k < NONCE; k++) out[k] = pool[u + k]!;
    this.used = u + NONCE;
    return this.seal(out);
  }

  /** Whether `session` was minted under this secret (compared in constant time). */
  check(session: Uint8Array): boolean {
    if (session.length !== SESSION_BYTES) return false;
    this.tag(session, 0);
    const diff = (this.h[0]! ^ wordAt(session, 8)) | (this.h[1]! ^ wordAt(session, 12));
    return diff === 0;
  }
}
