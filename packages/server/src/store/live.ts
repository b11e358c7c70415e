/**
 * The live concern of the store: the sites' capacity reports, kept for every instance
 * (`docs/live-policy.md`).
 */

/** A site's capacity report as the store keeps it for every instance (`docs/live-policy.md`). */
export interface StoredCapacityReport {
  /** The pathway's ID. */
  readonly pathway: string;
  /** The hop's key, lowercase hexadecimal. */
  readonly hop: string;
  /** The report's `t`, room clock µs. */
  readonly t: bigint;
  /** The compact JWS as it was posted (every instance verifies it again). */
  readonly jws: string;
}

/** The capacity reports (both stores implement them; without, each instance keeps its own). */
export interface LiveStore {
  /**
   * Keeps a site's capacity report for the other instances, unless one of the same pathway and hop
   * with a `t` as late is kept; whether it was kept. (Both stores implement it; a store without it
   * keeps reports in the memory of each instance.)
   */
  putCapacityReport?(room: Uint8Array, report: StoredCapacityReport): Promise<boolean>;
  /** The capacity reports kept for the room: the latest of each pathway and hop. */
  capacityReports?(room: Uint8Array): Promise<StoredCapacityReport[]>;
}
