// The evidence index: records taken once, the window in use selected again when one of its
// records arrives late, records read back from the store at start, and pruned past the window.
import { windowAt } from '@wai-steering/evidence';
import { readHopRecord, sha256, unwrap } from '@wai-steering/wire';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_HORIZON, EvidenceIndex } from '../../src/engine/evidence-index.js';
import { demoApp } from '../helpers/setup.js';

type Ctx = Awaited<ReturnType<typeof demoApp>>;
let ctx: Ctx | undefined;
afterEach(async () => {
  await ctx?.close();
  ctx = undefined;
});

function recordOf(c: Ctx, hop: number, end: bigint) {
  const P = c.setup.policy.period_us;
  const bytes = c.sim.record(c.setup.hops[hop]!, end - P, end, 10);
  const digest = sha256(bytes.subarray(0, bytes.length - 64));
  return { bytes, digest, record: unwrap(readHopRecord(bytes)) };
}

/** An index of its own over the engine's policy in force and clock. */
function indexOf(c: Ctx): EvidenceIndex {
  return new EvidenceIndex(
    c.engine.policy,
    DEFAULT_HORIZON,
    () => c.engine.policies.current,
    c.engine.now,
  );
}

describe('EvidenceIndex', () => {
  it('takes a record once, and selects the window in use again for one of its records', async () => {
    ctx = await demoApp();
    const c = ctx;
    const index = indexOf(c);
    const { b } = windowAt(c.engine.policy, c.clock.us);
    const inWindow = recordOf(c, 0, b);
    const cache = c.engine.policies.current.cache;
    const before = cache.at(c.clock.us);
    expect(cache.at(c.clock.us)).toBe(before);
    expect(index.take(inWindow.record, inWindow.digest)).toBe(true);
    expect(index.take(inWindow.record, inWindow.digest)).toBe(false);
    expect(index.size).toBe(1);
    // The window in use is selected again: a new evidence object.
    expect(cache.at(c.clock.us)).not.toBe(before);
    // A record of a later window leaves the window in use as it is.
    const now = cache.at(c.clock.us);
    const later = recordOf(c, 0, b + 10n * c.setup.policy.period_us);
    expect(index.take(later.record, later.digest)).toBe(true);
    expect(cache.at(c.clock.us)).toBe(now);
  });

  it('learns the bytes another instance stored, and refuses bytes that do not read', async () => {
    ctx = await demoApp();
    const index = indexOf(ctx);
    const r = recordOf(ctx, 1, windowAt(ctx.engine.policy, ctx.clock.us).b);
    expect(index.learn(r.bytes, r.digest)).toBe(true);
    expect(index.learn(r.bytes, r.digest)).toBe(false);
    expect(index.learn(r.bytes.subarray(0, 10), r.digest)).toBe(false);
  });

  it('loads the records of the store a current or later window may name, and prunes the rest', async () => {
    ctx = await demoApp();
    const c = ctx;
    const P = c.setup.policy.period_us;
    const { a, b } = windowAt(c.engine.policy, c.clock.us);
    const old = recordOf(c, 0, a - P);
    const current = recordOf(c, 0, b);
    for (const r of [old, current]) {
      await c.store.commit({
        decisions: [],
        records: [
          {
            digest: r.digest,
            bytes: r.bytes,
            hop: r.record.hop,
            start: r.record.start,
            end: r.record.end,
          },
        ],
      });
    }
    const index = indexOf(c);
    await index.load(c.store);
    expect(index.size).toBe(1);
    // Far ahead, the current window's record goes too.
    index.prune(c.clock.us + 100n * P);
    expect(index.size).toBe(0);
  });
});
