// Verification of every manifest the steering server served to a player, from the network alone,
// with the verifier's network client (`fetchAndVerify`): the decision from the URI the manifest
// names (§8.4), then from that URI's origin the policy, the room's descriptor and key log head
// and every record the decision names, then §9.1 with the manifest exactly as the player
// received it (step 7 compares its bytes).

import { fetchAndVerify, type Outcome, VerifierCache } from '@wai-steering/verifier';
import { type Decision, readDecision } from '@wai-steering/wire';

/** A verifier over HTTP with one signature cache for the whole run. */
export class NetworkVerifier {
  private readonly cache = new VerifierCache();

  /**
   * The C8 outcome of the decision behind `manifest`, the bytes a player received, and the
   * decision as read (its report is what the server read from the request).
   */
  async verify(manifest: Uint8Array): Promise<{ outcome: Outcome; decision: Decision }> {
    const verified = await fetchAndVerify({ manifest }, { cache: this.cache });
    const read = readDecision(verified.decision);
    if (!read.ok) {
      throw new Error(
        `${verified.decisionUri}: the decision does not read (${read.refusal.reason})`,
      );
    }
    return { outcome: verified.outcome, decision: read.value };
  }
}
