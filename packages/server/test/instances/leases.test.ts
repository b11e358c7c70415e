import { NO_CAPACITY_LIMIT } from '@wai-steering/wire';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  grant,
  isShort,
  leaseTarget,
  MIN_HEADROOM,
  statedLoads,
} from '../../src/instances/leases.js';

describe('leaseTarget', () => {
  it('asks for its sessions plus a headroom of twice its placements', () => {
    expect(leaseTarget(0, 10, 30, false)).toEqual(70);
    // Idle (nothing placed since its last beat): it returns its free slots.
    expect(leaseTarget(5, 2, 0, false)).toEqual(2);
    expect(leaseTarget(0, 0, 0, false)).toEqual(0);
    // Short: at once, at least the least headroom and twice the decisions waiting.
    expect(leaseTarget(12, 12, 5, true)).toEqual(22);
    expect(leaseTarget(3, 3, 0, true)).toEqual(3 + MIN_HEADROOM);
    expect(leaseTarget(0, 0, 0, true)).toEqual(MIN_HEADROOM);
    expect(leaseTarget(3, 3, 0, true, 10)).toEqual(23);
  });

  it('keeps what it holds between half the headroom and twice it above its sessions', () => {
    // headroom 20: kept from own + 10 to own + 40.
    expect(leaseTarget(110, 100, 10, false)).toEqual(110);
    expect(leaseTarget(140, 100, 10, false)).toEqual(140);
    expect(leaseTarget(109, 100, 10, false)).toEqual(120);
    expect(leaseTarget(141, 100, 10, false)).toEqual(120);
  });
});

describe('grant', () => {
  it('grants the target within what the others leave, and nothing without a limit', () => {
    expect(grant(30, 100, 50, 0, 2)).toEqual(30);
    expect(grant(80, 100, 50, 0, 2)).toEqual(50);
    expect(grant(10, 100, 120, 0, 2)).toEqual(0);
    expect(grant(10, NO_CAPACITY_LIMIT, 0)).toEqual(0);
  });

  it('grants a share of the free capacity while it is far from used, little once it is not', () => {
    // 10 000 free for 2 instances: a quarter of what is left over its own 100 sessions.
    expect(grant(110, 10_000, 0, 100, 2)).toEqual(100 + Math.floor(9_900 / 4));
    // Nearly used: the share is small, and the target within what is left.
    expect(grant(110, 10_000, 9_880, 100, 2)).toEqual(110);
    expect(grant(130, 10_000, 9_880, 100, 2)).toEqual(120);
  });

  it('never grants past what the others leave', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1000 }),
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 0, max: 1200 }),
        fc.integer({ min: 0, max: 1000 }),
        fc.integer({ min: 1, max: 8 }),
        (target, capacity, others, own, n) => {
          const g = grant(target, capacity, others, own, n);
          expect(g).toBeGreaterThanOrEqual(0);
          expect(g).toBeLessThanOrEqual(Math.max(0, capacity - others));
        },
      ),
    );
  });
});

describe('statedLoads', () => {
  const caps = [100, NO_CAPACITY_LIMIT, 10];

  it("states its own count and its peers' as before while it holds a free slot", () => {
    expect(statedLoads([5, 7, 2], [20, 30, 3], caps, [10, 0, 4], [])).toEqual([25, 37, 5]);
    // No leases (one instance): its own and its peers' counts.
    expect(statedLoads([5, 7, 2], [20, 30, 3], caps, undefined, [])).toEqual([25, 37, 5]);
  });

  it('states a pathway whose slots it has all placed at its own count plus the capacity it does not hold', () => {
    // Pathway 0: 10 held, 10 placed, peers count 20 → 10 + (100 − 10) = 100, at the limit.
    expect(statedLoads([10, 7, 4], [20, 30, 3], caps, [10, 0, 4], [])[0]).toEqual(100);
    // One more (a client of the pathway steered to it again): past the limit.
    expect(statedLoads([11, 7, 4], [20, 30, 3], caps, [10, 0, 4], [])[0]).toEqual(101);
    // No limit: never raised; pathway 2: 4 of 4 held, 4 + 10 − 4 = 10.
    expect(statedLoads([11, 7, 4], [20, 30, 3], caps, [10, 0, 4], [])).toEqual([101, 37, 10]);
  });

  it('lets §6.1 place a new session in a limited pathway only within the lease', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 0, max: 1000 }),
        fc.integer({ min: 0, max: 1000 }),
        fc.integer({ min: 0, max: 1000 }),
        (capacity, held, own, peers) => {
          const [load] = statedLoads([own], [peers], [capacity], [held], []);
          // §6.1 capacity for a client not counted there: load < capacity.
          if (load! < capacity) expect(own).toBeLessThan(held);
          // And the load stated is never below the deployment's count as the instance sees it.
          expect(load).toBeGreaterThanOrEqual(Math.min(own + peers, 0xffff_ffff));
        },
      ),
    );
  });
});

describe('isShort', () => {
  it('is short of a limited pathway it filled while the deployment is below its capacity', () => {
    expect(isShort([10, 0], [20, 0], [100, NO_CAPACITY_LIMIT], [10, 0])).toEqual(true);
    expect(isShort([10, 0], [90, 0], [100, NO_CAPACITY_LIMIT], [10, 0])).toEqual(false);
    expect(isShort([9, 50], [20, 0], [100, NO_CAPACITY_LIMIT], [10, 0])).toEqual(false);
  });
});
