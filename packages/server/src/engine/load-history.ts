/**
 * The loads this server stated at each second of the room clock, for the last few minutes: what
 * live capacity adds the sites' GAS to (`live/capacity.ts`; `docs/live-policy.md`, *Which load*).
 *
 * The load of a second S is the one a decision at S × 10^6 µs, the start of the second, states
 * (`docs/audit.md`, *The load replay*): every session placed by a decision before it that still
 * counts at second S, plus each live peer's latest heartbeat then. Sessions change only when a
 * decision places one (ends come in whole seconds), so that count is the session table's
 * `loadsAt(S × 10^6)` taken before anything at S or later changes the table: {@link LoadHistory.advance}
 * is called with the current second before every change (a decision's placement, the sweep's
 * removals, a lookup that removes an expired session) and before every `loadsAt`, and records
 * each second it passes. An auditor replays the same count from the decision log: the load replay
 * advanced to S × 10^6 over the decisions before it.
 */
import type { SessionTable } from '../sessions.js';

/** How many seconds are kept: a report's `t` may be this old when it arrives. */
export const LOAD_HISTORY_SECONDS = 120;

/** The loads at the start of one second, under the pathway IDs of the policy then in force. */
interface Entry {
  readonly second: number;
  readonly ids: readonly string[];
  readonly loads: Uint32Array;
}

/** Where the counts come from. */
export interface LoadHistorySource {
  readonly sessions: SessionTable;
  /** The pathway IDs of the policy in force, in the order the session table counts them. */
  ids(): readonly string[];
  /** Each pathway's load at the live peers (their latest heartbeats), when there are peers. */
  peers(): ArrayLike<number> | undefined;
}

export class LoadHistory {
  private readonly ring: (Entry | undefined)[];
  /** The latest second recorded; -1 before the first. */
  private last = -1;

  constructor(
    private readonly source: LoadHistorySource,
    private readonly seconds = LOAD_HISTORY_SECONDS,
  ) {
    if (!Number.isInteger(seconds) || seconds < 1) throw new TypeError('LoadHistory: seconds');
    this.ring = new Array<Entry | undefined>(seconds).fill(undefined);
  }

  /**
   * Records the load at the start of every second after the last recorded, up to `second` (the
   * room clock's, seconds since the epoch): call it before the session table changes at
   * `second`. The first call records `second` alone (nothing is known of the seconds before).
   */
  advance(second: number): void {
    if (second <= this.last) return;
    const from = this.last < 0 ? second : Math.max(this.last + 1, second - this.seconds + 1);
    const ids = this.source.ids();
    const peers = this.source.peers();
    for (let s = from; s <= second; s++) {
      const loads = Uint32Array.from(this.source.sessions.loadsAt(s * 1_000_000, ids));
      if (peers !== undefined) {
        for (let i = 0; i < loads.length && i < peers.length; i++) loads[i]! += peers[i]!;
      }
      this.ring[s % this.seconds] = { second: s, ids, loads };
    }
    this.last = second;
  }

  /**
   * The load of pathway `id` at the start of `second`, as recorded; `undefined` when that second
   * is not held (before the first recorded, or older than the history) or the pathway was not
   * in the policy then. `now` (a second) is recorded first, so a second that has come is held.
   */
  at(second: number, id: string, now: number): number | undefined {
    this.advance(now);
    if (second > this.last || second < 0) return undefined;
    const e = this.ring[second % this.seconds];
    if (e === undefined || e.second !== second) return undefined;
    const i = e.ids.indexOf(id);
    return i < 0 ? undefined : e.loads[i];
  }
}
