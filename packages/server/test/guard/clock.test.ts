// Finding 1: a clock far ahead at start deleted served decisions. Now the start is refused, and
// retention counts back from the newest decision kept, never from the clock alone.
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config/read.js';
import { monotonicClock } from '../../src/engine/clock.js';
import { startServer } from '../../src/server.js';
import { fileServer, get, postRecords, TestClock, tempDir } from '../helpers/setup.js';

const S = 1_000_000n;
const DAY_MS = 86_400_000;

let cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.reverse()) await f();
  cleanup = [];
  vi.restoreAllMocks();
});

/** A file store with records and decisions, written by a server on `clock`, then closed. */
async function filledStore(clock: TestClock) {
  const t = tempDir('wai-clock-');
  cleanup.push(t.remove);
  const { server, setup, config, sim } = await fileServer(t.dir, clock);
  const P = setup.policy.period_us;
  const digests: string[] = [];
  for (let round = 0; round < 5; round++) {
    const end = (clock.us / P) * P;
    await postRecords(server.app, setup, sim, [end - 2n * P, end - P, end]);
    clock.advance(1000);
    for (let i = 0; i < 8; i++) {
      const res = await get(server.app, '/steer');
      expect(res.status).toBe(200);
      const m = JSON.parse(String(res.body))['science.transaction.wai-decision'] as string;
      digests.push(m.slice(-64));
    }
    clock.advance(60_000);
  }
  const before = await server.store.stats();
  await server.close();
  return { dir: t.dir, setup, config, digests, before };
}

describe('the clock at start', () => {
  it('refuses to start 8 days ahead of the newest decision, and retention deletes nothing newer', async () => {
    const clock = new TestClock(BigInt(Date.now()) * 1000n);
    const { config, digests, before } = await filledStore(clock);
    expect(before.decisions).toBe(40);

    // 8 days ahead, retention 7 days (the demo's is 1 day; make it 7).
    const week = {
      ...config,
      retention: { ...config.retention, records: 7 * DAY_MS, decisions: 7 * DAY_MS },
    };
    const ahead = new TestClock(clock.us + 8n * 86_400n * S);
    await expect(startServer(week, { clock: ahead.now })).rejects.toThrow(
      /^time: the clock \(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\) is (7 d 23 h|8 d) after the newest decision or record in the store \(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\).*--trust-clock/,
    );
    // Before the newest decision: refused too.
    const behind = new TestClock(clock.us - 3600n * S);
    await expect(startServer(week, { clock: behind.now })).rejects.toThrow(
      /^time: the clock .* is (59 min( \d+ s)?|1 h( \d+ min)?) before the newest decision in the store/,
    );

    // Told the clock is right, it starts; a pruning pass then deletes nothing newer than the
    // newest decision minus retention: here, nothing at all.
    const trusted = await startServer(week, { clock: ahead.now, trustClock: true });
    cleanup.push(() => trusted.close());
    const pruned = await trusted.engine.prune(week.retention.records, week.retention.decisions);
    expect(pruned).toEqual({ records: 0, decisions: 0, sets: 0 });
    expect(await trusted.store.stats()).toMatchObject({
      decisions: before.decisions,
      records: before.records,
    });
    for (const hex of digests) {
      expect((await get(trusted.app, `/decisions/${hex}`)).status).toBe(200);
    }
  });

  it('starts on a store whose newest decision is within the bounds', async () => {
    const clock = new TestClock(BigInt(Date.now()) * 1000n);
    const { dir } = await filledStore(clock);
    clock.advance(3_600_000); // an hour later
    const again = await startServer(loadConfig(join(dir, 'config.json')), { clock: clock.now });
    cleanup.push(() => again.close());
    expect((await again.store.stats()).decisions).toBe(40);
  });
});

describe('the clock while running', () => {
  it('is monotonic after start: a step of the wall clock does not move it', () => {
    const clock = monotonicClock();
    const first = clock();
    const wall = Date.now();
    // The wall clock jumps 8 days ahead, then 8 days back.
    const now = vi.spyOn(Date, 'now').mockReturnValue(wall + 8 * DAY_MS);
    const during = clock();
    now.mockReturnValue(wall - 8 * DAY_MS);
    const after = clock();
    expect(during >= first && after >= during).toBe(true);
    expect(after - first < 60n * S).toBe(true);
  });
});
