/**
 * What an engine shares with the other instances (or worker processes) of its deployment: the
 * peers' loads it adds to its own (`loads.ts`), a catch-up to await before deciding over a new
 * window (`feed.ts`), and where to announce a record it stored (so that the others name it in
 * the window in use).
 */
import type { StoredRecord } from '../store/store.js';
import type { PeerLoads } from './loads.js';

export interface InstanceLink {
  readonly peers?: PeerLoads;
  /**
   * Called before deciding at a window of start `a` (µs): a promise the decision waits for (the
   * catch-up of the records the others stored), or `undefined` when there is nothing to wait for.
   */
  beforeWindow?(a: bigint): Promise<void> | undefined;
  /** A record this instance stored, new. */
  stored?(record: StoredRecord): void;
  /**
   * A capacity report this instance kept in the store, or a policy it put in force there, for the
   * others to read now (a store that notifies by itself needs none).
   */
  announceLive?(what: 'capacity' | 'policy'): void;
}
