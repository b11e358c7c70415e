/**
 * §6.3: the client's draw and the pathways' bands of minimum shares.
 */
import { type CryptoBackend, getBackend, type PolicyFields } from '@wai-steering/wire';

/** §6.3: the ASCII tag "wai:steering-draw" followed by 0x01. */
const DRAW_TAG: Uint8Array = /* @__PURE__ */ (() => {
  const tag = 'wai:steering-draw';
  const out = new Uint8Array(tag.length + 1);
  for (let i = 0; i < tag.length; i++) out[i] = tag.charCodeAt(i);
  out[tag.length] = 0x01;
  return out;
})();

/** §6.3: draws and band offsets are in parts per million of [0, 1 000 000). */
export const PPM = 1_000_000;

/** The draw's message, the tag in place: each draw writes the digest and session over it. */
const DRAW_MESSAGE: Uint8Array = /* @__PURE__ */ (() => {
  const message = new Uint8Array(DRAW_TAG.length + 48);
  message.set(DRAW_TAG, 0);
  return message;
})();

/**
 * §6.3: d = u32(SHA-256("wai:steering-draw" ‖ 0x01 ‖ policy digest ‖ session)[0..4]) mod
 * 1 000 000, the first four bytes read as a u32, little-endian as every u32 of this family (§2).
 * Fixed for a session: it depends on nothing else.
 */
export function drawOf(
  policyDigest: Uint8Array,
  session: Uint8Array,
  backend?: CryptoBackend,
): number {
  if (!(policyDigest instanceof Uint8Array) || policyDigest.length !== 32) {
    throw new TypeError('drawOf: the policy digest must be 32 bytes');
  }
  if (!(session instanceof Uint8Array) || session.length !== 16) {
    throw new TypeError('drawOf: the session must be 16 bytes');
  }
  const message = DRAW_MESSAGE; // the tag is in place; the rest is written over each time
  message.set(policyDigest, DRAW_TAG.length);
  message.set(session, DRAW_TAG.length + 32);
  const h = (backend ?? getBackend()).sha256(message);
  // §2: a u32 is little-endian.
  const u32 = (h[0]! | (h[1]! << 8) | (h[2]! << 16) | (h[3]! << 24)) >>> 0;
  return u32 % PPM;
}

/**
 * §6.3: the index of the pathway whose band [S_i, S_i + min_share_ppm_i) holds `draw`, S_i the
 * sum of the shares before it in the policy's order; `undefined` when no band holds it.
 */
export function bandOf(policy: Pick<PolicyFields, 'pathways'>, draw: number): number | undefined {
  let s = 0;
  const pathways = policy.pathways;
  for (let i = 0; i < pathways.length; i++) {
    const share = pathways[i]!.min_share_ppm;
    // Shares are u32s: the sum of up to 32 of them stays exact in a double (below 2^53).
    if (draw >= s && draw < s + share) return i;
    s += share;
  }
  return undefined;
}
