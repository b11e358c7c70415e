/** What the agent counts, for its `/metrics` (`http.ts`). */

/** The counters of a hop agent, as its `/metrics` states them. */
export interface AgentCounts {
  /** Records cut, by class (0: the unmetered marker). */
  readonly periods: Map<number, number>;
  /** Energy stated in the records cut, µJ. */
  joules: bigint;
  /** Bytes sent out stated in the records cut. */
  bytes: bigint;
  /** Sessions of the last period cut. */
  sessions: number;
  /** Readings of a source that failed. */
  sourceErrors: number;
  /** End of the last period cut, room clock µs. */
  lastEnd: bigint;
  /** Times a record could not be written to the spool when due. */
  spoolErrors: number;
  /** Spool files that did not read, moved to `refused/`. */
  spoolRefused: number;
}

/** Counters at zero. */
export function newCounts(): AgentCounts {
  return {
    periods: new Map<number, number>(),
    joules: 0n,
    bytes: 0n,
    sessions: 0,
    sourceErrors: 0,
    lastEnd: 0n,
    spoolErrors: 0,
    spoolRefused: 0,
  };
}
