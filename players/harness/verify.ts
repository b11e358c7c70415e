// Verification of every manifest the steering server served to a player, from the network alone:
// the decision from the URI the manifest names (§8.4), then from that URI's origin the policy,
// the room's descriptor and key log head and every record the decision names, then §9.1 with the
// manifest exactly as the player received it (step 7 compares its bytes).

import { type Outcome, VerifierCache, verifyDecision } from '@wai-steering/verifier';
import { type Decision, readDecision, toHex } from '@wai-steering/wire';

const MEMBER = 'science.transaction.wai-decision';

async function get(url: string, optional = false): Promise<Uint8Array | null> {
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  if (optional && res.status === 404) return null;
  if (!res.ok) throw new Error(`GET ${url}: ${res.status} ${await res.text()}`);
  return new Uint8Array(await res.arrayBuffer());
}

/** A verifier over HTTP with one signature cache for the whole run. */
export class NetworkVerifier {
  private readonly cache = new VerifierCache();

  /**
   * The C8 outcome of the decision behind `manifest`, the bytes a player received, and the
   * decision as read (its report is what the server read from the request).
   */
  async verify(manifest: Uint8Array): Promise<{ outcome: Outcome; decision: Decision }> {
    const parsed = JSON.parse(new TextDecoder().decode(manifest)) as Record<string, unknown>;
    const uri = parsed[MEMBER];
    if (typeof uri !== 'string') throw new Error(`the manifest has no "${MEMBER}"`);
    const decision = (await get(uri))!;
    const read = readDecision(decision);
    if (!read.ok) throw new Error(`${uri}: the decision does not read (${read.refusal.reason})`);
    const origin = new URL(uri).origin;
    const roomHex = toHex(read.value.room);
    const [policy, room, keyLog] = await Promise.all([
      get(`${origin}/policies/${toHex(read.value.policy)}`),
      get(`${origin}/rooms/${roomHex}/descriptor`),
      get(`${origin}/rooms/${roomHex}/key-log`, true),
    ]);
    const named = [...new Set(read.value.pathways.flatMap((p) => p.evidence).map(toHex))];
    const records = await Promise.all(named.map((hex) => get(`${origin}/records/${hex}`)));
    const outcome = verifyDecision(
      {
        room: room!,
        keyLog,
        policy: policy!,
        decision,
        records: records.map((r) => r!),
        manifest,
      },
      { cache: this.cache },
    );
    return { outcome, decision: read.value };
  }
}
