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
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** The bytes of a session. */
export const SESSION_BYTES = 16;
const NONCE = 8;

/** Mints and checks sessions under one secret (shared by the instances of a deployment). */
export class SessionMac {
  private readonly secret: Buffer;

  /** `secret`: at least 16 bytes; a fresh random one (this process only) when absent. */
  constructor(secret?: Uint8Array) {
    if (secret !== undefined && secret.length < 16) {
      throw new TypeError('SessionMac: the secret is at least 16 bytes');
    }
    this.secret = secret === undefined ? randomBytes(32) : Buffer.from(secret);
  }

  private tag(nonce: Uint8Array): Buffer {
    return createHmac('sha256', this.secret)
      .update(nonce)
      .digest()
      .subarray(0, SESSION_BYTES - NONCE);
  }

  /** The session of `nonce` (8 bytes): the nonce, then its tag. */
  sessionOf(nonce: Uint8Array): Uint8Array {
    if (nonce.length !== NONCE) throw new TypeError('SessionMac: a nonce is 8 bytes');
    const out = new Uint8Array(SESSION_BYTES);
    out.set(nonce, 0);
    out.set(this.tag(nonce), NONCE);
    return out;
  }

  /** A new session: 8 random bytes and their tag. */
  mint(): Uint8Array {
    return this.sessionOf(randomBytes(NONCE));
  }

  /** Whether `session` was minted under this secret. */
  check(session: Uint8Array): boolean {
    if (session.length !== SESSION_BYTES) return false;
    const expected = this.tag(session.subarray(0, NONCE));
    return timingSafeEqual(expected, session.subarray(NONCE));
  }
}
