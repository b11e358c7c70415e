/**
 * The policies concern of the store: what decisions are made under, kept by digest (blobs:
 * policies, room descriptors, key log heads, each served by digest and named by the decisions),
 * and the order of the policies put in force for every instance (`docs/live-policy.md`).
 */

/** A blob served by digest: a policy, a room descriptor or a key log head. */
export type BlobKind = 'policy' | 'room' | 'key-log';

/**
 * A policy put in force for a room, as the store orders them: `seq` counts from 1, one row per
 * rotation, and the instance that writes `seq` first has put that policy in force for all.
 */
export interface PolicyClaim {
  readonly seq: number;
  /** The policy's digest (§3.4) and bytes. */
  readonly digest: Uint8Array;
  readonly bytes: Uint8Array;
  /** The operator's policy (the template) this one keeps the bounds of; its own digest if it is one. */
  readonly template: Uint8Array;
  /** When it was put in force, room clock µs. */
  readonly at: bigint;
  readonly by: 'operator' | 'live';
}

/** The blobs: policies, room descriptors and key log heads, by kind and digest. */
export interface BlobStore {
  /** Keeps a policy, room descriptor or key log head (idempotent by digest). */
  putBlob(kind: BlobKind, digest: Uint8Array, bytes: Uint8Array): Promise<void>;
  /** A kept blob of that kind. */
  getBlob(kind: BlobKind, digest: Uint8Array): Promise<Uint8Array | undefined>;
  /** Every kept blob of that kind (policies, rooms, key log heads: a handful). */
  listBlobs(kind: BlobKind): Promise<{ readonly digest: Uint8Array; readonly bytes: Uint8Array }[]>;
  /**
   * The key log heads kept (`putBlob('key-log', …)`), in no order: the server checks the
   * configured head against the newest of them at start (`guard/key-log.ts`).
   */
  keyLogHeads?(): Promise<Uint8Array[]>;
}

/** The blobs, and the order of the policies put in force (a store shared by instances). */
export interface PolicyStore extends BlobStore {
  /**
   * Puts a policy in force for every instance: keeps its bytes and writes its claim, in one
   * transaction, unless `claim.seq` is written already (another instance rotated first); whether
   * it was written.
   */
  claimPolicy?(room: Uint8Array, claim: PolicyClaim): Promise<boolean>;
  /** The room's latest claim, `undefined` before the first. */
  policyInForce?(room: Uint8Array): Promise<PolicyClaim | undefined>;
  /**
   * The room's claims kept, in ascending `seq`: the policies put in force and when (retention
   * prunes those replaced long before the oldest kept decision). The energy account reads the
   * policies in force over a span from them.
   */
  policyClaims?(room: Uint8Array): Promise<PolicyClaim[]>;
}
