/**
 * What the generator computes on its own, from the text, to check the code under test rather
 * than copy it: the draw (§6.3), the steering manifest (§8.1), the HLS tag (§8.2) and the DASH
 * element (§8.3). None of this imports `rule` or `manifest`.
 */
import { nobleBackend, type PolicyFields, toHex } from '@wai-steering/wire';

/** §6.3: d = u32(SHA-256("wai:steering-draw" ‖ 0x01 ‖ policy digest ‖ session)[0..4]) mod 10^6. */
export function drawByHand(policyDigest: Uint8Array, session: Uint8Array): number {
  const tag = new TextEncoder().encode('wai:steering-draw');
  const msg = new Uint8Array(tag.length + 1 + 32 + 16);
  msg.set(tag, 0);
  msg[tag.length] = 0x01;
  msg.set(policyDigest, tag.length + 1);
  msg.set(session, tag.length + 1 + 32);
  const h = nobleBackend.sha256(msg);
  // §2: a u32 is little-endian.
  const u32 = h[0]! + h[1]! * 0x100 + h[2]! * 0x10000 + h[3]! * 0x1000000;
  return u32 % 1_000_000;
}

/** §6.3: the index of the band that holds `draw`, or `null`. */
export function bandByHand(policy: Pick<PolicyFields, 'pathways'>, draw: number): number | null {
  let s = 0;
  for (const [i, p] of policy.pathways.entries()) {
    if (s <= draw && draw < s + p.min_share_ppm) return i;
    s += p.min_share_ppm;
  }
  return null;
}

/** §8.1, written from the text. */
export function manifestByHand(
  policy: PolicyFields,
  decision: {
    readonly ttl: number;
    readonly session: Uint8Array;
    readonly priority: readonly number[];
  },
  digest: Uint8Array,
): string {
  const q = (s: string): string => `"${s}"`;
  const reload = `${policy.reload_uri}${policy.reload_uri.includes('?') ? '&' : '?'}wai_session=${toHex(decision.session)}`;
  const ids = decision.priority.map((i) => q(policy.pathways[i]!.id)).join(',');
  let text = `{"VERSION":1,"TTL":${decision.ttl},"RELOAD-URI":${q(reload)},"PATHWAY-PRIORITY":[${ids}],`;
  const clones = policy.pathways.filter((p) => p.base !== 255);
  if (clones.length > 0) {
    const items = clones.map((c) => {
      const parts: string[] = [];
      if (c.host !== '') parts.push(`"HOST":${q(c.host)}`);
      if (c.params.length > 0) {
        parts.push(`"PARAMS":{${c.params.map((p) => `${q(p.name)}:${q(p.value)}`).join(',')}}`);
      }
      return `{"BASE-ID":${q(policy.pathways[c.base]!.id)},"ID":${q(c.id)},"URI-REPLACEMENT":{${parts.join(',')}}}`;
    });
    text += `"PATHWAY-CLONES":[${items.join(',')}],`;
  }
  return `${text}"science.transaction.wai-decision":${q(policy.decision_uri + toHex(digest))}}`;
}

/** §8.2, written from the text. */
export function hlsTagByHand(policy: PolicyFields): string {
  return `#EXT-X-CONTENT-STEERING:SERVER-URI="${policy.server_uri}",PATHWAY-ID="${policy.pathways[policy.initial]!.id}"`;
}

/** §8.3, written from the text (C9: each `&` written `&amp;`). */
export function dashElementByHand(policy: PolicyFields): string {
  const uri = policy.server_uri.split('&').join('&amp;');
  const before = (policy.flags & 1) === 1 ? 'true' : 'false';
  return `<ContentSteering defaultServiceLocation="${policy.pathways[policy.initial]!.id}" queryBeforeStart="${before}">${uri}</ContentSteering>`;
}
