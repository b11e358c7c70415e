// A running server's periodic work, on timers that keep no process alive and stop together.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startTimers } from '../../src/start/timers.js';
import { demoApp } from '../helpers/setup.js';

type Ctx = Awaited<ReturnType<typeof demoApp>>;
let ctx: Ctx | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await ctx?.close();
  ctx = undefined;
});

describe('startTimers', () => {
  it('sweeps, syncs, samples and prunes on their intervals, and stops', async () => {
    ctx = await demoApp();
    const { engine, store, activity, config } = ctx;
    const calls = { sweep: 0, sync: 0, prune: 0, sample: 0 };
    engine.sweep = () => void calls.sweep++;
    engine.syncLive = async () => void calls.sync++;
    engine.prune = async () => {
      calls.prune++;
      return { records: 0, decisions: 0, sets: 0 };
    };
    activity.sample = () => void calls.sample++;
    vi.useFakeTimers();
    const timers = startTimers(
      { ...config, retention: { ...config.retention, sweep: 5000 } },
      engine,
      store,
      activity,
    );
    vi.advanceTimersByTime(10_000);
    expect(calls).toEqual({ sweep: 200, sync: 10, prune: 2, sample: 10 });
    timers.stop();
    vi.advanceTimersByTime(10_000);
    expect(calls).toEqual({ sweep: 200, sync: 10, prune: 2, sample: 10 });
  });
});
