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
import { hash, randomBytes, randomFillSync, timingSafeEqual } from 'node:crypto';

/** The bytes of a session. */
export const SESSION_BYTES = 16;
const NONCE = 8;
/** SHA-256's block size (RFC 2104's B). */
const BLOCK = 64;
/** Random nonces are drawn this many bytes at a time (one syscall for 512 sessions). */
const POOL = 4096;

/** Mints and checks sessions under one secret (shared by the instances of a deployment). */
export class SessionMac {
  /** RFC 2104: (K ⊕ ipad) then room for the nonce; (K ⊕ opad) then room for the inner hash. */
  private readonly inner = Buffer.alloc(BLOCK + NONCE);
  private readonly outer = Buffer.alloc(BLOCK + 32);
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
    for (let i = 0; i < BLOCK; i++) {
      const k = key[i] ?? 0;
      this.inner[i] = k ^ 0x36;
      this.outer[i] = k ^ 0x5c;
    }
  }

  /**
   * HMAC-SHA-256 (RFC 2104) of a nonce, truncated to 8 bytes. Written out on `crypto.hash`, the
   * one-shot SHA-256, with the padded keys computed once: `createHmac` builds an object per call,
   * which cost a steering request more than the rest of its session handling. Tested against
   * `createHmac` (`test/guard/session-mac.test.ts`).
   */
  private tag(nonce: Uint8Array): Buffer {
    this.inner.set(nonce, BLOCK);
    this.outer.set(hash('sha256', this.inner, 'buffer'), BLOCK);
    return hash('sha256', this.outer, 'buffer').subarray(0, SESSION_BYTES - NONCE);
  }

  /** The session of `nonce` (8 bytes): the nonce, then its tag. */
  sessionOf(nonce: Uint8Array): Uint8Array {
    if (nonce.length !== NONCE) throw new TypeError('SessionMac: a nonce is 8 bytes');
    const out = new Uint8Array(SESSION_BYTES);
    out.set(nonce, 0);
    out.set(this.tag(nonce), NONCE);
    return out;
  }

  /** A new session: 8 random bytes (from a pool refilled by the CSPRNG) and their tag. */
  mint(): Uint8Array {
    if (this.used + NONCE > POOL) {
      randomFillSync(this.pool);
      this.used = 0;
    }
    const nonce = this.pool.subarray(this.used, this.used + NONCE);
    this.used += NONCE;
    return this.sessionOf(nonce);
  }

  /** Whether `session` was minted under this secret. */
  check(session: Uint8Array): boolean {
    if (session.length !== SESSION_BYTES) return false;
    const expected = this.tag(session.subarray(0, NONCE));
    return timingSafeEqual(expected, session.subarray(NONCE));
  }
}
