/**
 * The lease book of an instance (`leases.ts`: the arithmetic): the slots of each pathway's
 * capacity it holds and until when, what its beats ask for, and the slots the exchanges grant
 * under their lock (`loads.ts` through PostgreSQL, `ipc-loads.ts` through the primary).
 */
import { grant, leaseTarget } from './leases.js';

/** What the lease book reads of its exchange's options (`LoadExchangeOptions`). */
export interface LeaseBookOptions {
  /**
   * Each pathway's capacity under the policy in force (§3.3; `NO_CAPACITY_LIMIT` for none): with
   * it, leases are kept; without, none.
   */
  readonly capacities?: () => ArrayLike<number>;
  /** The sessions this instance newly placed in each pathway so far (a running count). */
  readonly placed?: () => ArrayLike<number>;
}

/**
 * This instance's lease and what its beats ask for (`leaseTarget`). Slots granted are used once
 * the grant is written; slots returned are published as held until the beat after (`held`), by
 * when this instance no longer uses them.
 */
export class LeaseBook {
  slots = new Uint32Array(0);
  /** `performance.now()` until which the lease holds (the others drop it after). */
  validUntil = 0;
  /** A take found no slot to grant: none is asked again before the next beat. */
  starved = false;
  private lastPlaced: ArrayLike<number> = [];
  private readonly zeros = new Uint32Array(256);
  /** The take of slots under way, if any (`take`). */
  private taking: Promise<void> | undefined;

  constructor(private readonly o: LeaseBookOptions) {}

  get enabled(): boolean {
    return this.o.capacities !== undefined;
  }

  /** The take of slots under way, if any. */
  get pending(): Promise<void> | undefined {
    return this.taking;
  }

  /**
   * Asks for more slots now through `beat` (a short beat of the exchange), one take at a time:
   * the decisions that ask while one is under way wait for it. Nothing to wait for when the book
   * keeps no leases, or a take found no slot to grant since the last regular beat.
   */
  take(beat: () => Promise<void>): Promise<void> {
    if (!this.enabled || this.starved) return Promise.resolve();
    this.taking ??= beat().finally(() => {
      this.taking = undefined;
    });
    return this.taking;
  }

  lease(pathways: number): Uint32Array | undefined {
    if (!this.enabled) return undefined;
    if (performance.now() > this.validUntil || this.slots.length !== pathways) {
      return this.zeros.subarray(0, pathways);
    }
    return this.slots;
  }

  /** The targets of a beat; shrinks the lease to them now. */
  targets(
    own: ArrayLike<number>,
    pathways: number,
    short: boolean,
    waiting: number,
  ): number[] | undefined {
    if (!this.enabled) return undefined;
    if (this.slots.length !== pathways) this.slots = new Uint32Array(pathways);
    const placedNow = this.o.placed?.() ?? [];
    const targets: number[] = new Array(pathways);
    for (let i = 0; i < pathways; i++) {
      const placed =
        placedNow.length === pathways && this.lastPlaced.length === pathways
          ? Math.max(0, placedNow[i]! - this.lastPlaced[i]!)
          : 0;
      targets[i] = leaseTarget(this.slots[i]!, own[i] ?? 0, placed, short, waiting);
    }
    this.lastPlaced = Array.from(placedNow);
    return targets;
  }

  /**
   * The slots granted by a beat whose row was written at `started` or after (ms,
   * `performance.now()`); a `short` beat that got no more leaves the lease starved until the
   * next regular beat.
   */
  granted(
    slots: readonly number[],
    started: number,
    liveMs: number,
    intervalMs: number,
    short: boolean,
  ): void {
    let more = false;
    for (let i = 0; i < slots.length; i++) if (slots[i]! > (this.slots[i] ?? 0)) more = true;
    this.starved = short && !more;
    this.slots = Uint32Array.from(slots);
    // The others drop this instance `liveMs` after its row was written (not before `started`):
    // its lease ends a little before, a quarter of that or an interval, whichever is less.
    this.validUntil = started + liveMs - Math.min(intervalMs, liveMs / 4);
  }

  capacities(pathways: number): number[] {
    const c = this.o.capacities?.() ?? [];
    return Array.from({ length: pathways }, (_, i) => c[i] ?? 0);
  }

  /** The slots this instance holds now (it may place in them until the next grant is applied). */
  held(pathways: number): number[] {
    return Array.from({ length: pathways }, (_, i) => this.slots[i] ?? 0);
  }
}

/** What a row publishes as held: the grant, or what the instance held before, whichever is more. */
export function publishedHeld(granted: readonly number[], before: readonly number[]): number[] {
  return granted.map((g, i) => Math.max(g, before[i] ?? 0));
}

/** The slots to grant to one instance, from its targets, its counts and the live others' rows. */
export function grantAll(
  targets: readonly number[],
  own: ArrayLike<number | string>,
  capacities: readonly number[],
  others: readonly {
    readonly counts: ArrayLike<number | string>;
    readonly slots: ArrayLike<number | string>;
  }[],
): number[] {
  return targets.map((target, i) => {
    let held = 0;
    for (const o of others) held += Math.max(Number(o.counts[i] ?? 0), Number(o.slots[i] ?? 0));
    return grant(target, capacities[i]!, held, Number(own[i] ?? 0), others.length + 1);
  });
}
