/**
 * §8.3: the MPD's element (ETSI TS 103 998 clause 5.2).
 */
import type { PolicyFields } from '@wai-steering/wire';

/**
 * §8.3: `<ContentSteering defaultServiceLocation="<initial id>" queryBeforeStart="<true|false>">`
 * `<server_uri></ContentSteering>`, `queryBeforeStart` true when flag bit 0 is set, the URI
 * with each `&` written `&amp;` (C9: the only character of §3.3's URIs that XML text escapes),
 * and no line terminator (C9).
 */
export function dashElement(
  policy: Pick<PolicyFields, 'server_uri' | 'initial' | 'flags' | 'pathways'>,
): string {
  const initial = policy.pathways[policy.initial];
  if (initial === undefined) throw new RangeError('dashElement: initial is not a pathway (§3.3)');
  const query = (policy.flags & 1) === 1 ? 'true' : 'false';
  const uri = policy.server_uri.replaceAll('&', '&amp;');
  return `<ContentSteering defaultServiceLocation="${initial.id}" queryBeforeStart="${query}">${uri}</ContentSteering>`;
}
