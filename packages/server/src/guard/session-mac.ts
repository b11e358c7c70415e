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
 * RFC 2104's HMAC over `@noble/hashes`' SHA-256, keyed once: the hashes after the padded keys
 * (K ⊕ ipad) and (K ⊕ opad) are kept, and each tag clones them into two reused instances
 * (`_cloneInto`). The fastest of the ways the libraries were measured for an 8-byte message:
 * noble's `hmac` wrapper keyed once and cloned, `node:crypto`'s `createHmac` and two one-shot
 * `hash` calls all cost more (`bench/session-mac.bench.mjs`). A SHA-256 compression written out
 * for it was measured against this one and removed: it saved 1.1 to 1.6 µs of a steering
 * request's 75 to 80 µs of CPU (1.5 to 2.0 %), short of the 2 % that would have kept it
 * (docs/decisions.md).
 */
import { randomBytes, randomFillSync } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2.js';

/** The bytes of a session. */
export const SESSION_BYTES = 16;
const NONCE = 8;
/** SHA-256's block size (RFC 2104's B). */
const BLOCK = 64;
/** Random nonces are drawn this many bytes at a time (one syscall for 512 sessions). */
const POOL = 4096;

type Sha256 = ReturnType<typeof sha256.create>;

/** Mints and checks sessions under one secret (shared by the instances of a deployment). */
export class SessionMac {
  /** RFC 2104 with SHA-256: the hashes after the blocks (K ⊕ ipad) and (K ⊕ opad). */
  private readonly inner: Sha256;
  private readonly outer: Sha256;
  /** The instances a tag is hashed in (clones of `inner` and `outer`), reused. */
  private innerWork: Sha256 | undefined;
  private outerWork: Sha256 | undefined;
  private readonly nonce = new Uint8Array(NONCE);
  private readonly digest = new Uint8Array(32);
  private readonly pool = Buffer.alloc(POOL);
  private used = POOL;

  /** `secret`: at least 16 bytes; a fresh random one (this process only) when absent. */
  constructor(secret?: Uint8Array) {
    if (secret !== undefined && secret.length < 16) {
      throw new TypeError('SessionMac: the secret is at least 16 bytes');
    }
    let key: Uint8Array = secret ?? randomBytes(32);
    // RFC 2104 §2: a key longer than the block is hashed first; shorter ones are zero-padded.
    if (key.length > BLOCK) key = sha256(key);
    const padded = new Uint8Array(BLOCK);
    padded.set(key);
    for (let i = 0; i < BLOCK; i++) padded[i]! ^= 0x36;
    this.inner = sha256.create().update(padded);
    for (let i = 0; i < BLOCK; i++) padded[i]! ^= 0x36 ^ 0x5c;
    this.outer = sha256.create().update(padded);
    padded.fill(0);
  }

  /**
   * HMAC-SHA-256 (RFC 2104) of the 8-byte nonce at `bytes[at..at + 8)`, in `this.digest`, of
   * which a session keeps the first 8 bytes. Tested against `createHmac`
   * (`test/guard/session-mac.test.ts`).
   */
  private tag(bytes: Uint8Array, at: number): Uint8Array {
    const nonce = this.nonce;
    const digest = this.digest;
    for (let k = 0; k < NONCE; k++) nonce[k] = bytes[at + k]!;
    // The inner hash: H((K ⊕ ipad) ‖ nonce), from the state after the first block.
    const inner = this.inner._cloneInto(this.innerWork);
    this.innerWork = inner;
    inner.update(nonce);
    inner.digestInto(digest);
    // The outer hash: H((K ⊕ opad) ‖ inner hash).
    const outer = this.outer._cloneInto(this.outerWork);
    this.outerWork = outer;
    outer.update(digest);
    outer.digestInto(digest);
    return digest;
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
