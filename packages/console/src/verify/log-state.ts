/**
 * The verifier page's decision-log check: where a decision fetched from a server is in that
 * server's decision log, its proof verified in the browser as `wai-steer verify --url` verifies
 * it. No DOM here: `main.ts` shows the answer.
 */
import { verifyDecisionProof } from '@wai-steering/auditor';
import { readStrictJson } from '@wai-steering/config-text';
import { type NetworkVerification, openRoom } from '@wai-steering/verifier';
import { bytesEqual, fromHex, nobleBackend, readDecision, toHex } from '@wai-steering/wire';

/**
 * The decision's place in the log: `logged`, `not_yet` (no checkpoint holds it yet),
 * `not_found`, `bad_proof` or `error`, with a sentence to show.
 */
export interface LogState {
  readonly state: 'logged' | 'not_yet' | 'not_found' | 'bad_proof' | 'error';
  readonly text: string;
}

/** GETs `url`: its status, headers and bytes (a network failure throws). */
async function get(url: URL): Promise<{ status: number; headers: Headers; bytes: Uint8Array }> {
  const res = await fetch(url, { cache: 'no-store' });
  return {
    status: res.status,
    headers: res.headers,
    bytes: new Uint8Array(await res.arrayBuffer()),
  };
}

/**
 * Where the decision is in the server's decision log: `GET /log/proof/<digest>` (tlog-proof),
 * verified as `wai-steer verify --url` verifies it: the checkpoint signed under its origin by a key
 * that may sign the room's decisions (the room's descriptor and key log head, fetched again and
 * held to the room verified), the inclusion proof against its root.
 */
export async function logState(v: NetworkVerification): Promise<LogState> {
  const read = readDecision(v.decision);
  if (!read.ok) return { state: 'error', text: 'The decision does not read.' };
  const digest = nobleBackend.sha256(read.value.body);
  const base = new URL(v.decisionUri);
  const descriptor = await get(new URL(`/rooms/${v.roomId}/descriptor`, base));
  const keyLog = await get(new URL(`/rooms/${v.roomId}/key-log`, base));
  const ctx = openRoom(descriptor.bytes, keyLog.status === 200 ? keyLog.bytes : null, {
    backend: nobleBackend,
  });
  if (!ctx.ok || !bytesEqual(ctx.value.roomId, fromHex(v.roomId))) {
    return {
      state: 'error',
      text: 'The room the server serves now does not verify as the one trusted.',
    };
  }
  const proof = await get(new URL(`/log/proof/${toHex(digest)}`, base));
  const body = new TextDecoder().decode(proof.bytes);
  if (proof.status === 404) {
    const read = readStrictJson(body);
    const error =
      read.ok && read.value !== null && typeof read.value === 'object'
        ? (read.value as { error?: unknown }).error
        : undefined;
    if (error === 'not_logged_yet') {
      const after = proof.headers.get('retry-after');
      return {
        state: 'not_yet',
        text: `Not in the decision log yet: no checkpoint holds it${after === null ? '' : ` (the server says to ask again in ${after} s)`}.`,
      };
    }
    return { state: 'not_found', text: 'Not in the decision log: the server has no proof of it.' };
  }
  if (proof.status !== 200)
    return { state: 'error', text: `The log's proof: HTTP ${proof.status}.` };
  const proved = verifyDecisionProof(body, ctx.value, { t: read.value.t, digest }, nobleBackend);
  if (!proved.ok) {
    return {
      state: 'bad_proof',
      text: `The server's proof of inclusion does not verify: ${proved.message}.`,
    };
  }
  const p = proved.value;
  return {
    state: 'logged',
    text: `In the decision log ${p.origin} at index ${p.index}, in the checkpoint of ${p.size} entries signed by ${toHex(p.signer)}: inclusion proof verified.`,
  };
}
