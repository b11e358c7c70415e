/**
 * The capacity leases' part of deciding (`instances/leases.ts`, `docs/server.md`, *Capacity
 * across instances*): the loads a decision states (§6: the instance's own, plus its live peers'
 * latest, a pathway in which it holds no free slot at its limit), and the take of more slots an
 * instance that ran out asks for before it decides; the sessions it newly placed in each pathway,
 * which its heartbeat asks slots for.
 */
import { isShort, statedLoads } from '../instances/leases.js';
import type { PeerLoads } from '../instances/loads.js';

/** How many takes of slots one decision may wait for before it decides over what it holds. */
export const MAX_TAKES = 3;

/** The leases as one engine's decisions use them. */
export class LeaseGate {
  /** The sessions newly placed in each pathway so far (a running count, for the leases). */
  private placed = new Uint32Array(0);
  /** Decisions waiting for a take of slots (`PeerLoads.take`). */
  private waiting = 0;
  /** The loads a decision states, written in place (`statedLoads`). */
  private readonly stated: number[] = [];

  /** `peers`: the other instances' loads and this one's lease, when there are any. */
  constructor(private readonly peers: () => PeerLoads | undefined) {}

  /**
   * §6: the loads a decision states over this instance's own loads `own` (in the policy's order,
   * of pathways of these `capacities`); or, when the instance ran out of slots of a pathway that
   * may have free ones elsewhere and the decision has waited for fewer than {@link MAX_TAKES}
   * takes (`takes`), a take of more slots, resolved once answered: the decision is then made
   * again at the clock of then. The loads are an array the next call overwrites.
   */
  loads(
    own: ArrayLike<number>,
    capacities: ArrayLike<number>,
    takes: number,
  ): number[] | Promise<void> {
    const peers = this.peers();
    const lease = peers?.lease();
    if (lease !== undefined && takes < MAX_TAKES && isShort(own, peers!.peers, capacities, lease)) {
      // The decisions waiting share a take; should they use its slots up, another (the
      // exchange answers at once when a take found none to grant).
      this.waiting++;
      return peers!.take(this.waiting).then(() => {
        this.waiting--;
      });
    }
    return statedLoads(own, peers?.peers, capacities, lease, this.stated);
  }

  /** A session newly placed first in pathway `first` (of `pathways`), counted for the leases. */
  place(first: number, pathways: number): void {
    if (this.placed.length !== pathways) this.placed = new Uint32Array(pathways);
    this.placed[first]!++;
  }

  /** The sessions newly placed in each pathway so far, in the policy's order (for the leases). */
  get placements(): Uint32Array {
    return this.placed;
  }
}
