/**
 * Evidence computed once per window move, not per request: the evidence is a function of the
 * window (§5.1) and the records, and the window moves one period at a time.
 */
import { type Evidence, type EvidenceStore, type SelectPolicy, selectEvidence } from './select.js';
import { type WindowPolicy, windowAt, windowSpanAt } from './window.js';

/**
 * `at(t)` gives the evidence at instant t: selected again only when t's window differs from the
 * cached one. Records added to the store between two moves are read at the next move (or after
 * {@link EvidenceCache.invalidate}). While the window holds, `at` is two bigint comparisons and
 * returns the same `Evidence` object, which callers treat as immutable.
 */
export class EvidenceCache {
  private readonly policy: SelectPolicy & WindowPolicy;
  private readonly store: EvidenceStore;
  private cached: Evidence | undefined;
  /** The instants whose window is the cached one: [from, until). */
  private from = 0n;
  private until = 0n;

  constructor(policy: SelectPolicy & WindowPolicy, store: EvidenceStore) {
    this.policy = policy;
    this.store = store;
  }

  /** The evidence at instant `t` (room clock µs). */
  at(t: bigint): Evidence {
    const cached = this.cached;
    if (cached !== undefined && t >= this.from && t < this.until) return cached;
    const span = windowSpanAt(this.policy, t);
    const window = windowAt(this.policy, t);
    const evidence = selectEvidence(this.policy, window, this.store);
    this.cached = evidence;
    this.from = span.from;
    this.until = span.until;
    return evidence;
  }

  /** Drops the cached evidence: the next `at` selects again (after records arrived late, say). */
  invalidate(): void {
    this.cached = undefined;
  }
}
