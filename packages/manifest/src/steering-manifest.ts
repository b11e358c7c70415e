/**
 * §8.1: the steering manifest, written byte for byte, and §8.4: the decision's URI.
 */
import { type DecisionFields, type PolicyFields, toHex } from '@wai-steering/wire';

/** §8.1: the media type of content-steering-04 §11.1, with which the manifest is served. */
export const STEERING_MEDIA_TYPE = 'application/vnd.apple.steering-list';

/** The policy fields §8.1 reads. */
export type ManifestPolicy = Pick<PolicyFields, 'reload_uri' | 'decision_uri' | 'pathways'>;

/** The decision fields §8.1 reads. */
export type ManifestDecision = Pick<DecisionFields, 'session' | 'ttl' | 'priority'>;

/** What a policy gives every manifest: written once per policy object. */
interface Parts {
  /** `{"VERSION":1,"TTL":` */
  readonly reload: string;
  /** Each pathway's id in double quotes. */
  readonly ids: readonly string[];
  /** `],"PATHWAY-CLONES":[…]` or `]`, then `,"science.transaction.wai-decision":"<decision_uri>`. */
  readonly tail: string;
}

const parts = new WeakMap<ManifestPolicy, Parts>();

/**
 * §3.3 leaves nothing in a policy's strings that JSON escapes (§8.1); a string that holds `"`,
 * `\` or a control character breaks §3.3, and writing it unescaped would not be JSON.
 */
function checkJsonText(s: string, what: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || c > 0x7e) {
      throw new RangeError(`writeManifest: ${what} holds a character §3.3 does not allow`);
    }
  }
  return s;
}

function partsOf(policy: ManifestPolicy): Parts {
  const hit = parts.get(policy);
  if (hit !== undefined) return hit;
  // §8.1 <reload>: reload_uri, then `&` when it holds a `?` and `?` otherwise, then wai_session=.
  const reloadUri = checkJsonText(policy.reload_uri, 'reload_uri');
  const reload = `${reloadUri}${reloadUri.includes('?') ? '&' : '?'}wai_session=`;
  const ids = policy.pathways.map((p) => `"${checkJsonText(p.id, 'a pathway id')}"`);
  // §8.1: "PATHWAY-CLONES" only when the policy has a clone; every clone, in the policy's order.
  const clones: string[] = [];
  policy.pathways.forEach((p, i) => {
    if (p.base === 255) return;
    const base = policy.pathways[p.base];
    if (base === undefined || p.base >= i) {
      throw new RangeError(
        'writeManifest: a clone of a pathway not before it (§3.3 clone_unknown)',
      );
    }
    // <replacement>: "HOST" when it has a host, then (after `,`) "PARAMS" when it has params.
    const replacement: string[] = [];
    if (p.host.length > 0) replacement.push(`"HOST":"${checkJsonText(p.host, 'a host')}"`);
    if (p.params.length > 0) {
      const params = p.params.map(
        (q) =>
          `"${checkJsonText(q.name, 'a param name')}":"${checkJsonText(q.value, 'a param value')}"`,
      );
      replacement.push(`"PARAMS":{${params.join(',')}}`);
    }
    // A clone of a clone: its BASE-ID is that clone's id (C9).
    clones.push(
      `{"BASE-ID":${ids[p.base]!},"ID":${ids[i]!},"URI-REPLACEMENT":{${replacement.join(',')}}}`,
    );
  });
  const decisionUri = checkJsonText(policy.decision_uri, 'decision_uri');
  const tail =
    (clones.length > 0 ? `],"PATHWAY-CLONES":[${clones.join(',')}]` : ']') +
    `,"science.transaction.wai-decision":"${decisionUri}`;
  const value: Parts = { reload, ids, tail };
  parts.set(policy, value);
  return value;
}

function checkDigest(digest: Uint8Array): void {
  if (!(digest instanceof Uint8Array) || digest.length !== 32) {
    throw new TypeError('the decision digest must be 32 bytes');
  }
}

/** §8.4: the URI at which the decision is served: `decision_uri` then the digest in lowercase hex. */
export function decisionUri(
  policy: Pick<PolicyFields, 'decision_uri'>,
  digest: Uint8Array,
): string {
  checkDigest(digest);
  return policy.decision_uri + toHex(digest);
}

/**
 * §8.1: the steering manifest of a decision, byte for byte, with no line terminator (C9):
 * `{"VERSION":1,"TTL":<ttl>,"RELOAD-URI":"<reload>","PATHWAY-PRIORITY":[<ids>],`
 * `["PATHWAY-CLONES":[<clones>],]"science.transaction.wai-decision":"<decision>"}`.
 * Hex is lowercase (C9). The policy's parts are written once per policy object.
 */
export function writeManifest(
  policy: ManifestPolicy,
  decision: ManifestDecision,
  decisionDigest: Uint8Array,
): string {
  checkDigest(decisionDigest);
  const { session, ttl, priority } = decision;
  if (!(session instanceof Uint8Array) || session.length !== 16) {
    throw new TypeError('writeManifest: the session must be 16 bytes');
  }
  // §8.1 <ttl>: decimal digits with no leading zero (a u32 of at least 1, §7.2).
  if (!Number.isInteger(ttl) || ttl < 1 || ttl > 0xffff_ffff) {
    throw new RangeError('writeManifest: the TTL is not a u32 of at least 1');
  }
  const p = partsOf(policy);
  let ids = '';
  for (let k = 0; k < priority.length; k++) {
    const id = p.ids[priority[k]!];
    if (id === undefined) throw new RangeError('writeManifest: the priority names no pathway');
    ids += k === 0 ? id : `,${id}`;
  }
  return (
    `{"VERSION":1,"TTL":${ttl},"RELOAD-URI":"${p.reload}${toHex(session)}",` +
    `"PATHWAY-PRIORITY":[${ids}${p.tail}${toHex(decisionDigest)}"}`
  );
}
