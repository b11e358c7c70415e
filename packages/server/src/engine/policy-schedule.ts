/**
 * The claims of the store's order of policies an instance knows (`policy-in-force.ts`): the
 * latest of them, and those whose instant has not come yet, each with its policy prepared. A
 * decision at `t` is made under the claim of the greatest `seq` whose `at` is at or before `t`
 * (`docs/live-policy.md`, *Several instances*); the claims before it never apply again.
 */
import type { Policy } from '@wai-steering/wire';
import type { PolicyClaim } from '../store/store.js';
import type { InForce } from './in-force.js';

/** A claim with what decisions under it need. */
export interface Due {
  readonly claim: PolicyClaim;
  readonly next: InForce;
  /** A live policy's template, when it is another than the one in force's (read from the store). */
  readonly template?: Policy | undefined;
}

export class Schedule {
  /** The claims not in force yet, in ascending `seq`. */
  private readonly ahead: Due[] = [];
  private latest_: Due | undefined;
  private lastAt = 0n;

  /** The greatest `seq` known: a new claim's is the next. */
  get seq(): number {
    return this.latest_?.claim.seq ?? 0;
  }

  /** The latest claim known (in force, or to apply later). */
  get last(): Due | undefined {
    return this.latest_;
  }

  /** The instant of the next claim to apply, if one waits. */
  get next(): bigint | undefined {
    return this.ahead[0]?.claim.at;
  }

  /** `at`, or the latest instant known when it is later: the order's instants go forward. */
  after(at: bigint): bigint {
    return at > this.lastAt ? at : this.lastAt;
  }

  /** A claim known, after every one added before it (by `seq`); put in force by {@link dueAt}. */
  add(d: Due): void {
    if (d.claim.seq <= this.seq) return;
    this.latest_ = d;
    if (d.claim.at > this.lastAt) this.lastAt = d.claim.at;
    this.ahead.push(d);
  }

  /**
   * The claim to put in force for a decision at `t`: the last (by `seq`) whose instant has come,
   * when one waits; it and those before it leave the schedule.
   */
  dueAt(t: bigint): Due | undefined {
    let last = -1;
    for (let i = 0; i < this.ahead.length; i++) if (this.ahead[i]!.claim.at <= t) last = i;
    if (last < 0) return undefined;
    const due = this.ahead[last]!;
    this.ahead.splice(0, last + 1);
    return due;
  }
}
