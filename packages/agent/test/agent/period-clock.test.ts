import { describe, expect, it } from 'vitest';
import {
  type Boundary,
  clockStepped,
  defaultCutDelay,
  defaultTolerance,
  firstSpanStart,
  PeriodClock,
  systemClock,
} from '../../src/agent/period-clock.js';
import { onCleanup } from '../helpers/rig.js';
import { ManualClock } from '../helpers/room.js';

const P = 1_000_000n;
const B0 = 1_800_000_000_000_000n;

describe('the defaults', () => {
  it('tolerance min(P/4, 2 s); cut delay min(L/2, P/5, 1 s)', () => {
    expect([1_000_000n, 4_000_000n, 8_000_000n, 60_000_000n].map(defaultTolerance)).toEqual([
      250_000n,
      1_000_000n,
      2_000_000n,
      2_000_000n,
    ]);
    expect(defaultCutDelay(1_000_000n, 600_000n)).toBe(200_000n); // P/5
    expect(defaultCutDelay(10_000_000n, 1_000_000n)).toBe(500_000n); // L/2
    expect(defaultCutDelay(60_000_000n, 15_000_000n)).toBe(1_000_000n); // 1 s
  });
});

describe('a step of the room clock', () => {
  const tol = 250_000n;
  it('the two clocks disagreeing by more than the tolerance, either way', () => {
    const a = { at: B0, mono: 0n };
    expect(clockStepped(a, { at: B0 + P, mono: P }, tol)).toBe(false);
    expect(clockStepped(a, { at: B0 + P + tol, mono: P }, tol)).toBe(false);
    expect(clockStepped(a, { at: B0 + P + tol + 1n, mono: P }, tol)).toBe(true);
    expect(clockStepped(a, { at: B0 + P - tol - 1n, mono: P }, tol)).toBe(true);
    expect(clockStepped(a, { at: B0 + P, mono: P - tol - 1n }, tol)).toBe(true);
  });

  it('is not seen across processes (an instant with no monotonic reading)', () => {
    const restored = { at: B0, mono: undefined };
    expect(clockStepped(restored, { at: B0 + 9n * P, mono: 5n }, 0n)).toBe(false);
    expect(clockStepped({ at: B0, mono: 5n }, { at: B0 + 9n * P, mono: undefined }, 0n)).toBe(
      false,
    );
  });
});

describe('where the cutting starts', () => {
  const o = { current: B0 + 10n * P, period: P, history: 0, backfill: 10_000 };
  it('a fresh spool: the next whole period for a counter, the current one for a model', () => {
    expect(firstSpanStart({ ...o, cursorEnd: undefined, counter: true })).toEqual({
      from: B0 + 11n * P,
    });
    expect(firstSpanStart({ ...o, cursorEnd: undefined, counter: false })).toEqual({
      from: B0 + 10n * P,
    });
  });

  it('a fresh spool with a history: that many periods back, whatever the source', () => {
    for (const counter of [true, false]) {
      expect(firstSpanStart({ ...o, history: 3, cursorEnd: undefined, counter })).toEqual({
        from: B0 + 7n * P,
      });
    }
  });

  it("after a restart: from the cursor's end, at most `backfill` periods back", () => {
    const at = (cursorEnd: bigint, backfill: number) =>
      firstSpanStart({ ...o, history: 5, backfill, cursorEnd, counter: true });
    expect(at(B0 + 4n * P, 10)).toEqual({ from: B0 + 4n * P });
    expect(at(B0 + 10n * P, 0)).toEqual({ from: B0 + 10n * P });
    expect(at(B0 + 4n * P, 6)).toEqual({ from: B0 + 4n * P });
    expect(at(B0 + 4n * P, 2)).toEqual({
      from: B0 + 8n * P,
      notFilled: { from: B0 + 4n * P, to: B0 + 8n * P },
    });
  });
});

/** A manual clock over a room clock and a monotonic clock the test sets. */
function manualClock() {
  const room = new ManualClock(B0 + 100n);
  const mono = new ManualClock(0n);
  const logs: Record<string, unknown>[] = [];
  const clock = new PeriodClock({
    period: P,
    tolerance: 250_000n,
    clock: room.now,
    monotonic: mono.now,
    manual: true,
    log: (l) => logs.push(l),
    onTimer: () => {
      throw new Error('a manual clock has no timer');
    },
  });
  return { clock, room, mono, logs };
}

const late = (logs: Record<string, unknown>[]) =>
  logs.filter((l) => String(l.msg).startsWith('woken late')).map((l) => [l.boundary, l.late_us]);

describe('the boundaries due', () => {
  it('none before the next boundary; each boundary once, with both clocks', () => {
    const { clock, room, mono, logs } = manualClock();
    expect(clock.current()).toBe(B0);
    clock.runFrom(B0 + P);
    expect(clock.due()).toBeUndefined();
    room.set(B0 + P + 1000n);
    mono.set(7n);
    expect(clock.due()).toEqual({ boundary: B0 + P, at: B0 + P + 1000n, mono: 7n, onTime: true });
    expect(clock.due()).toBeUndefined();
    room.set(B0 + 2n * P + 250_000n);
    expect(clock.due()).toMatchObject({ boundary: B0 + 2n * P, onTime: true });
    expect(logs).toEqual([]);
  });

  it('a boundary seen past the tolerance is said, and is not on time', () => {
    const { clock, room, mono, logs } = manualClock();
    clock.runFrom(B0 + P);
    // Woken late: both clocks moved on.
    room.set(B0 + P + 250_001n);
    mono.set(P + 250_001n - 100n);
    expect(clock.due()).toMatchObject({ boundary: B0 + P, onTime: false });
    expect(late(logs)).toEqual([[String(B0 + P), '250001']]);
    expect(logs[0]).toMatchObject({ level: 'warn' });
  });

  it('the boundaries it slept past are said too: none was read', () => {
    const { clock, room, mono, logs } = manualClock();
    clock.runFrom(B0 + P);
    // A stall: both clocks moved on.
    room.set(B0 + 3n * P + 1000n);
    mono.set(3n * P + 900n);
    expect(clock.due()).toMatchObject({ boundary: B0 + 3n * P, onTime: true });
    expect(late(logs)).toEqual([
      [String(B0 + P), String(2n * P + 1000n)],
      [String(B0 + 2n * P), String(P + 1000n)],
    ]);
  });

  it('a step back: nothing is due until the room clock reaches the next boundary again', () => {
    const { clock, room, logs } = manualClock();
    clock.runFrom(B0 + 3n * P);
    room.set(B0 + P + 1000n);
    expect(clock.due()).toBeUndefined();
    room.set(B0 + 3n * P + 1000n);
    expect(clock.due()).toMatchObject({ boundary: B0 + 3n * P, onTime: true });
    expect(logs).toEqual([]);
  });
});

describe('the timer', () => {
  it('wakes for the next boundary on the system clock', async () => {
    const wakes: (() => void)[] = [];
    const woken = () => new Promise<void>((r) => wakes.push(r));
    const clock = new PeriodClock({
      period: 50_000n, // 50 ms
      tolerance: 12_500n,
      clock: systemClock,
      monotonic: systemClock,
      manual: false,
      log: () => {},
      onTimer: () => wakes.shift()?.(),
    });
    onCleanup(async () => clock.stop());
    const next = clock.current() + 50_000n;
    clock.runFrom(next);
    // A timer may fire a little before the boundary: the clock then sets it again.
    let b: Boundary | undefined;
    do {
      await woken();
      b = clock.due();
    } while (b === undefined);
    expect(b.boundary).toBeGreaterThanOrEqual(next);
    expect(b.at).toBeGreaterThanOrEqual(b.boundary);
  });

  it('until: resolves once the room clock reaches the instant', async () => {
    const clock = manualClock().clock;
    await clock.until(B0); // already past
    const real = new PeriodClock({
      period: P,
      tolerance: 250_000n,
      clock: systemClock,
      monotonic: systemClock,
      manual: true,
      log: () => {},
      onTimer: () => {},
    });
    const t = systemClock() + 30_000n;
    await real.until(t);
    expect(systemClock()).toBeGreaterThanOrEqual(t);
  });
});
