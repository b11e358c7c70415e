/**
 * §8.2: the multivariant playlist's tag (rfc8216bis-22 §4.4.6.6).
 */
import type { PolicyFields } from '@wai-steering/wire';

/**
 * §8.2: `#EXT-X-CONTENT-STEERING:SERVER-URI="<server_uri>",PATHWAY-ID="<initial id>"`, with no
 * line terminator (C9).
 */
export function hlsTag(policy: Pick<PolicyFields, 'server_uri' | 'initial' | 'pathways'>): string {
  const initial = policy.pathways[policy.initial];
  if (initial === undefined) throw new RangeError('hlsTag: initial is not a pathway (§3.3)');
  return `#EXT-X-CONTENT-STEERING:SERVER-URI="${policy.server_uri}",PATHWAY-ID="${initial.id}"`;
}
