// The primary's side of the workers' loads exchange: slots granted within what the live others
// hold, a silent worker's freed, never more than the capacity in all.
import { NO_CAPACITY_LIMIT } from '@wai-steering/wire';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LoadsHub } from '../../src/instances/ipc-loads.js';

describe('LoadsHub leases', () => {
  it('grants each worker slots within what the live others hold, and frees a silent one', () => {
    const hub = new LoadsHub(100, 4);
    const caps = [10, NO_CAPACITY_LIMIT];
    const a = hub.beat(1, { wai: 'loads', counts: [0, 0], targets: [8, 8], capacities: caps }, 0);
    expect(a.slots).toEqual([8, 0]);
    const b = hub.beat(2, { wai: 'loads', counts: [0, 0], targets: [8, 8], capacities: caps }, 10);
    expect(b.slots).toEqual([2, 0]);
    // Worker 1 counts more sessions than it holds (a client steered to it again): held by count.
    hub.beat(1, { wai: 'loads', counts: [9, 0], targets: [9, 0], capacities: caps }, 20);
    expect(
      hub.beat(2, { wai: 'loads', counts: [1, 0], targets: [5, 0], capacities: caps }, 30).slots,
    ).toEqual([1, 0]);
    // Worker 1 silent past 4 intervals: its slots are free.
    expect(
      hub.beat(2, { wai: 'loads', counts: [1, 0], targets: [5, 0], capacities: caps }, 500).slots,
    ).toEqual([5, 0]);
  });

  it('never grants more than the capacity in all, whatever the workers ask in turn', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 50 }),
        fc.array(fc.tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 0, max: 60 })), {
          maxLength: 40,
        }),
        (capacity, asks) => {
          const hub = new LoadsHub(100, 4);
          const held = new Map<number, number>();
          for (const [worker, target] of asks) {
            const counts = [Math.min(held.get(worker) ?? 0, target)];
            const r = hub.beat(
              worker,
              { wai: 'loads', counts, targets: [target], capacities: [capacity] },
              0,
            );
            held.set(worker, r.slots![0]!);
            const total = [...held.values()].reduce((x, y) => x + y, 0);
            expect(total).toBeLessThanOrEqual(capacity);
          }
        },
      ),
    );
  });
});
