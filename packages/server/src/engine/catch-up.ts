/**
 * The catch-up of the other instances' records before a new window (`instances/feed.ts`): a
 * decision at `t` in a window other than the last one asked about waits until the records the
 * other instances stored are read, so that every instance decides over the same evidence (§5).
 * A catch-up that fails is told once (`health.ts`), and the decision goes on over what is held.
 */

import { windowAt } from '@wai-steering/evidence';
import type { Policy } from '@wai-steering/wire';
import { describeError, type FaultSink } from '../health.js';
import type { InstanceLink } from '../instances/link.js';
import type { Metrics } from '../metrics.js';

/** The window whose start the link was last asked about, and the instants it holds. */
interface AskedWindow {
  readonly policy: Policy;
  readonly from: bigint;
  readonly until: bigint;
  readonly a: bigint;
}

/** The catch-ups of one engine: the window last asked about, and how a wait ends. */
export class CatchUp {
  private asked: AskedWindow | undefined;

  constructor(
    /** The link to the other instances, when there is one (read at each call). */
    private readonly link: () => InstanceLink | undefined,
    private readonly metrics: Metrics,
    private readonly health: FaultSink,
  ) {}

  /**
   * The catch-up to wait for before deciding at `t` under `policy`, when `t` is in a window
   * other than the last one asked about; `undefined` when there is none (no link, or the window
   * of the previous decisions).
   */
  before(policy: Policy, t: bigint): Promise<void> | undefined {
    const link = this.link();
    const before = link?.beforeWindow;
    if (before === undefined) return undefined;
    // The window's start, computed again only when t leaves the instants of the last one.
    const w = this.asked;
    if (w === undefined || w.policy !== policy || t < w.from || t >= w.until) {
      // §5.1: the window is the same for every t of one period after L + b (t < L + P: b = 0).
      const { a, b } = windowAt(policy, t);
      const from = b === 0n ? 0n : policy.lag_us + b;
      const until = b === 0n ? policy.lag_us + policy.period_us : from + policy.period_us;
      this.asked = { policy, from, until, a };
    }
    return before.call(link, this.asked!.a);
  }

  /**
   * Waits for the catch-up `first`, then for another should the clock (`clock`, read after each)
   * have reached a further window, up to three in all: the instant to decide at. A catch-up that
   * fails is told once (`health.ts`); the decision goes on over what is held.
   */
  async settle(first: Promise<void>, policy: Policy, clock: () => bigint): Promise<bigint> {
    let caughtUp: Promise<void> | undefined = first;
    let t = clock();
    for (let i = 0; caughtUp !== undefined; i++) {
      await caughtUp.then(
        () => this.health.clear('store_queries'),
        (e: unknown) => {
          this.metrics.storeErrors.inc({ op: 'query' });
          this.health.fail('store_queries', `the catch-up of records fails: ${describeError(e)}`);
        },
      );
      t = clock();
      caughtUp = i < 2 ? this.before(policy, t) : undefined;
    }
    return t;
  }
}
