/**
 * The policy a server decides under (§3): read, of the room, its signature verified and its
 * signer one that may sign policies (§3.5). One check for the policy of the configuration at
 * start, a policy the operator rotates in (SIGHUP, the admin route), and one the server signs
 * from live capacity.
 */
import { checkSigner, type RoomContext } from '@wai-steering/verifier';
import {
  bytesEqual,
  type CryptoBackend,
  digestOf,
  type Policy,
  readPolicy,
  toHex,
  verifyPolicySignature,
} from '@wai-steering/wire';

/** A policy that passed {@link checkPolicy}. */
export interface CheckedPolicy {
  readonly policy: Policy;
  readonly bytes: Uint8Array;
  /** §3.4: its digest. */
  readonly digest: Uint8Array;
}

/** What is wrong with a policy, as one sentence (no field name: the caller says where). */
export type PolicyCheck =
  | { readonly ok: true; readonly value: CheckedPolicy }
  | { readonly ok: false; readonly problem: string };

/** §3.3, §3.4, §3.5: whether `bytes` is a policy of the room that its signer may sign. */
export function checkPolicy(
  room: RoomContext,
  bytes: Uint8Array,
  backend: CryptoBackend,
): PolicyCheck {
  const read = readPolicy(bytes);
  if (!read.ok) return { ok: false, problem: `does not read (${read.refusal.message})` };
  const policy = read.value;
  if (!bytesEqual(policy.room, room.roomId)) {
    return {
      ok: false,
      problem: `the policy is of room ${toHex(policy.room)}, not ${toHex(room.roomId)}`,
    };
  }
  const badSig = verifyPolicySignature(policy, backend);
  if (badSig !== undefined) return { ok: false, problem: badSig.reason };
  const badSigner = checkSigner(room, policy.signer);
  if (badSigner !== undefined) {
    return {
      ok: false,
      problem: `its signer may not sign it (${badSigner.reason}): sign it with the room authority or a live/steer key of the key log`,
    };
  }
  return { ok: true, value: { policy, bytes, digest: digestOf(policy, backend) } };
}

/**
 * How the sessions of one policy's pathways map to another's: for each pathway of `from`, the
 * index of the pathway of `to` with the same ID, or -1 (removed). `undefined` when both have
 * the same IDs in the same order (nothing to move).
 */
export function pathwayMap(
  from: Pick<Policy, 'pathways'>,
  to: Pick<Policy, 'pathways'>,
): number[] | undefined {
  const index = new Map(to.pathways.map((p, i) => [p.id, i]));
  const map = from.pathways.map((p) => index.get(p.id) ?? -1);
  const same = from.pathways.length === to.pathways.length && map.every((m, i) => m === i);
  return same ? undefined : map;
}
