// The catch-up before a new window: the link is asked once per window (by its start `a`, §5.1),
// again only when the clock leaves the window's instants or the policy changes; a failing
// catch-up is told once and the decision goes on; at most three catch-ups are awaited.
import { windowAt } from '@wai-steering/evidence';
import { describe, expect, it } from 'vitest';
import { CatchUp } from '../../src/engine/catch-up.js';
import { Health } from '../../src/health.js';
import type { InstanceLink } from '../../src/instances/link.js';
import { Metrics } from '../../src/metrics.js';
import { liveWorld } from '../live/world.js';

const T0 = 1_800_000_000_000_000n;

/** A link that records the window starts it is asked about and answers with `answer(a)`. */
function linkOf(answer: (a: bigint) => Promise<void> | undefined) {
  const asked: bigint[] = [];
  const link: InstanceLink = {
    beforeWindow(a) {
      asked.push(a);
      return answer(a);
    },
  };
  return { link, asked };
}

function catchUpOf(link: InstanceLink | undefined) {
  const health = new Health({ log: () => {} });
  const metrics = new Metrics();
  return { catchUp: new CatchUp(() => link, metrics, health), health, metrics };
}

describe('CatchUp', () => {
  it('has nothing to wait for without a link', () => {
    const { policy } = liveWorld();
    expect(catchUpOf(undefined).catchUp.before(policy, T0)).toEqual(undefined);
  });

  it("asks the link with the window's start, the same start for every instant of a window", () => {
    const { policy } = liveWorld();
    const { link, asked } = linkOf(() => undefined);
    const { catchUp } = catchUpOf(link);
    const P = policy.period_us;
    catchUp.before(policy, T0);
    catchUp.before(policy, T0 + 1n);
    catchUp.before(policy, T0 + P);
    expect(asked).toEqual([
      windowAt(policy, T0).a,
      windowAt(policy, T0 + 1n).a,
      windowAt(policy, T0 + P).a,
    ]);
    expect(asked[0]).toEqual(asked[1]);
    expect(asked[2]).toEqual(asked[0]! + P);
  });

  it('tells a failing catch-up once and goes on, at the clock of then', async () => {
    const { policy } = liveWorld();
    const { link } = linkOf(() => undefined);
    const { catchUp, health, metrics } = catchUpOf(link);
    const t = await catchUp.settle(Promise.reject(new Error('gone')), policy, () => T0 + 7n);
    expect(t).toEqual(T0 + 7n);
    expect(health.has('store_queries')).toEqual(true);
    expect(metrics.storeErrors.get({ op: 'query' })).toEqual(1);
    await catchUp.settle(Promise.resolve(), policy, () => T0 + 7n);
    expect(health.has('store_queries')).toEqual(false);
  });

  it('waits for at most three catch-ups while the clock keeps reaching further windows', async () => {
    const { policy } = liveWorld();
    const { link, asked } = linkOf(() => Promise.resolve());
    const { catchUp } = catchUpOf(link);
    let now = T0;
    const clock = () => {
      now += policy.period_us;
      return now;
    };
    const t = await catchUp.settle(Promise.resolve(), policy, clock);
    // The first is given; two more are asked, each at a further window; the last clock decides.
    expect(asked.length).toEqual(2);
    expect(t).toEqual(T0 + 4n * policy.period_us);
  });
});
