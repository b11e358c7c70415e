/**
 * The health concern of the store: its sizes (metrics, the bench) and the newest instants it
 * holds (the start's clock check). A backend adds its own checks (SQLite: the file's state, its
 * `quick_check`).
 */

/** Sizes, for metrics and the bench. */
export interface StoreStats {
  readonly records: number;
  readonly decisions: number;
  readonly sets: number;
  /** Bytes the store occupies (database pages, WAL excluded). */
  readonly bytes: number;
}

/** The newest instants a store holds (µs); `undefined` when it holds none. */
export interface NewestHeld {
  readonly decision: bigint | undefined;
  readonly record: bigint | undefined;
}

/** Sizes and the newest instants held. */
export interface HealthStore {
  stats(): Promise<StoreStats>;
  /**
   * The newest instants the store holds, µs: the latest decision's `t`, and the latest `end` of
   * a record that ends at or before `notAfter`. The server checks its clock against them at
   * start (`guard/clock.ts`); a store without it is not checked.
   */
  newest?(notAfter: bigint): Promise<NewestHeld>;
}
