/**
 * The retention concern of the store (§8.4): decisions, their evidence sets and the records no
 * kept decision names, removed by age; the order of policies with them. The decision log is
 * pruned with its own concern (`LogWrites.pruneLog`, `log.ts`).
 */

/** What a pruning pass removed. */
export interface PruneResult {
  readonly records: number;
  readonly decisions: number;
  readonly sets: number;
}

/**
 * How long after a policy was replaced in the order of policies an instance may still decide
 * under it (one that has not read the order yet: a second or so): its bytes are kept this much
 * longer than the decisions (µs).
 */
export const POLICY_LAG_US = 3_600_000_000n;

/** Pruning by age. */
export interface RetentionStore {
  /**
   * Removes decisions decided before `decisionsBefore` (µs), with their evidence sets, and
   * records that ended before `recordsBefore` (µs) that no kept decision names (§8.4).
   */
  prune(recordsBefore: bigint, decisionsBefore: bigint): Promise<PruneResult>;
}
