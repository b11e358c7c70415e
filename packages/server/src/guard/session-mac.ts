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
 *
 * The HMAC is `@noble/hashes`' (RFC 2104), keyed once and cloned into one reused instance for
 * each tag: the fastest of the libraries measured for an 8-byte message, ahead of `node:crypto`'s
 * `createHmac` and two one-shot `hash` calls (docs/performance.md, `bench/session-mac.bench.mjs`).
 */

import { randomBytes, randomFillSync } from 'node:crypto';
import { type _HMAC, hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';

/** The bytes of a session. */
export const SESSION_BYTES = 16;
const NONCE = 8;
/** Random nonces are drawn this many bytes at a time (one syscall for 512 sessions). */
const POOL = 4096;

type Sha256 = ReturnType<typeof sha256.create>;

/** Mints and checks sessions under one secret (shared by the instances of a deployment). */
export class SessionMac {
  /** RFC 2104 with SHA-256, keyed once: its inner and outer hashes after the padded key. */
  private readonly keyed: _HMAC<Sha256>;
  /** The instance each tag is computed in (a clone of `keyed`), and the nonce and digest. */
  private work: _HMAC<Sha256> | undefined;
  private readonly nonce = new Uint8Array(NONCE);
  private readonly digest = new Uint8Array(32);
  private readonly pool = Buffer.alloc(POOL);
  private used = POOL;

  /** `secret`: at least 16 bytes; a fresh random one (this process only) when absent. */
  constructor(secret?: Uint8Array) {
    if (secret !== undefined && secret.length < 16) {
      throw new TypeError('SessionMac: the secret is at least 16 bytes');
    }
    // RFC 2104 §2: a key longer than the block is hashed first, shorter ones zero-padded (in
    // `hmac.create`, which keeps only the states after the padded keys).
    this.keyed = hmac.create(sha256, secret ?? randomBytes(32));
  }

  /**
   * HMAC-SHA-256 (RFC 2104) of the 8-byte nonce at `bytes[at..at + 8)`, in `this.digest`, of
   * which a session keeps the first 8 bytes. Tested against `createHmac`
   * (`test/guard/session-mac.test.ts`).
   */
  private tag(bytes: Uint8Array, at: number): Uint8Array {
    const nonce = this.nonce;
    for (let k = 0; k < NONCE; k++) nonce[k] = bytes[at + k]!;
    const work = this.keyed._cloneInto(this.work);
    this.work = work;
    work.update(nonce);
    work.digestInto(this.digest);
    return this.digest;
  }

  /** Writes the session of the nonce at `out[0..8)`: its tag at `out[8..16)`. */
  private seal(out: Uint8Array): Uint8Array {
    const tag = this.tag(out, 0);
    for (let k = 0; k < NONCE; k++) out[NONCE + k] = tag[k]!;
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
    const tag = this.tag(session, 0);
    let diff = 0;
    for (let k = 0; k < NONCE; k++) diff |= tag[k]! ^ session[NONCE + k]!;
    return diff === 0;
  }
}
