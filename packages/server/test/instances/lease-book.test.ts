// The lease book: no lease without capacities; a lease void once its time is past; one take at a
// time, none while starved; targets from the placements since the last beat; a grant published
// as the more of it and what was held.
import { NO_CAPACITY_LIMIT } from '@wai-steering/wire';
import { describe, expect, it } from 'vitest';
import { grantAll, LeaseBook, publishedHeld } from '../../src/instances/lease-book.js';
import { grant, leaseTarget } from '../../src/instances/leases.js';

describe('LeaseBook', () => {
  it('keeps no lease without capacities', async () => {
    const book = new LeaseBook({});
    expect(book.enabled).toEqual(false);
    expect(book.lease(2)).toEqual(undefined);
    expect(book.targets([0, 0], 2, false, 0)).toEqual(undefined);
    let beats = 0;
    await book.take(async () => {
      beats++;
    });
    expect(beats).toEqual(0);
  });

  it('holds the slots granted until its time, then none', () => {
    const book = new LeaseBook({ capacities: () => [10, 10] });
    expect(Array.from(book.lease(2)!)).toEqual([0, 0]);
    book.granted([3, 4], performance.now(), 60_000, 1000, false);
    expect(Array.from(book.lease(2)!)).toEqual([3, 4]);
    expect(book.held(2)).toEqual([3, 4]);
    book.granted([3, 4], performance.now() - 120_000, 60_000, 1000, false);
    expect(Array.from(book.lease(2)!)).toEqual([0, 0]);
  });

  it('asks the targets of its placements since the last beat', () => {
    let placed = [0, 0];
    const book = new LeaseBook({ capacities: () => [10, 10], placed: () => placed });
    expect(book.targets([0, 0], 2, false, 0)).toEqual([0, 0]);
    placed = [3, 0];
    expect(book.targets([3, 0], 2, false, 0)).toEqual([
      leaseTarget(0, 3, 3, false, 0),
      leaseTarget(0, 0, 0, false, 0),
    ]);
    expect(book.targets([3, 0], 2, true, 5)).toEqual([
      leaseTarget(0, 3, 0, true, 5),
      leaseTarget(0, 0, 0, true, 5),
    ]);
  });

  it('takes one at a time, and none while starved', async () => {
    const book = new LeaseBook({ capacities: () => [10] });
    let beats = 0;
    let release = () => {};
    const beat = () => {
      beats++;
      return new Promise<void>((r) => {
        release = r;
      });
    };
    const a = book.take(beat);
    const b = book.take(beat);
    expect(book.pending).toBeDefined();
    release();
    await Promise.all([a, b]);
    expect(beats).toEqual(1);
    expect(book.pending).toEqual(undefined);
    // A short beat that got no more slots leaves the book starved until a regular beat.
    book.granted([0], performance.now(), 60_000, 1000, true);
    await book.take(beat);
    expect(beats).toEqual(1);
    book.granted([0], performance.now(), 60_000, 1000, false);
    const c = book.take(beat);
    release();
    await c;
    expect(beats).toEqual(2);
  });

  it('publishes the more of the grant and what was held, and grants through `grant`', () => {
    expect(publishedHeld([2, 5], [4, 1])).toEqual([4, 5]);
    const others = [{ counts: [3, 0], slots: [5, 0] }];
    expect(grantAll([4, 4], [1, 0], [10, NO_CAPACITY_LIMIT], others)).toEqual([
      grant(4, 10, 5, 1, 2),
      0,
    ]);
  });
});
