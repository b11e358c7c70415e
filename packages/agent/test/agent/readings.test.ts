import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { newCounts } from '../../src/agent/counts.js';
import { CounterReadings } from '../../src/agent/readings.js';
import { type EnergySource, modelSource, raplSource } from '../../src/index.js';
import { B0, counterHop, counterTree, P, readEach, stated } from '../helpers/rig.js';
import { ManualClock } from '../helpers/room.js';

/** A counter hop started, its counter read at 10 µJ at boundary 1 and 20 µJ at boundary 2. */
async function readTwice() {
  // Half a period into B0's on both clocks.
  const mono = new ManualClock(P / 2n);
  const { server, pc, clock, hop } = await counterHop({ mono });
  const r = hop();
  await r.agent.start();
  await readEach(r, pc, [
    [1n, 10n],
    [2n, 20n],
  ]);
  return { server, pc, clock, mono, r };
}

describe('a step of the room clock', () => {
  it('forward: the periods it spans are signed unmetered, none skipped', async () => {
    const { server, pc, clock, mono, r } = await readTwice();
    // The room clock jumps 2.5 periods ahead while 0.2 s pass.
    pc.set(30n);
    clock.set(B0 + 4n * P + 700_000n);
    mono.set(2n * P + 200_000n);
    await r.agent.poll();
    pc.set(40n);
    clock.set(B0 + 5n * P + 1000n);
    mono.set(2n * P + 500_000n);
    await r.agent.poll();
    pc.set(55n);
    clock.set(B0 + 6n * P + 1000n);
    mono.set(3n * P + 500_000n);
    await r.agent.poll();
    expect(await r.agent.delivered()).toBe(true);
    expect(stated(server.records)).toEqual([
      [1n, 4, 10n],
      [2n, 0, 0n],
      [3n, 0, 0n],
      [4n, 0, 0n],
      [5n, 4, 15n],
    ]);
    const said = r.logs.filter((l) => String(l.msg).startsWith('the room clock stepped forward'));
    expect(said).toHaveLength(1);
    // 2.7 periods of the room clock in 0.2 of the monotonic one; period 3 was not lived at all.
    expect(said[0]).toMatchObject({
      level: 'warn',
      step_us: String(2n * P + 500_000n),
      periods_not_lived: 1,
    });
    expect(r.logs.filter((l) => String(l.msg).startsWith('woken late'))).toEqual([]);
  });

  it('back: no span is cut twice; the period the step falls in is unmetered', async () => {
    const { server, pc, clock, mono, r } = await readTwice();
    await readEach(r, pc, [[3n, 30n]]);
    // Back 1.5 periods: boundaries 2 and 3 are seen again.
    const steps: [bigint, bigint, bigint][] = [
      [2n, 4n, 40n],
      [3n, 5n, 50n],
      [4n, 6n, 65n],
      [5n, 7n, 85n],
    ];
    for (const [k, m, uj] of steps) {
      pc.set(uj);
      clock.set(B0 + k * P + 1000n);
      mono.set(m * P + 1000n);
      await r.agent.poll();
    }
    expect(await r.agent.delivered()).toBe(true);
    expect(stated(server.records)).toEqual([
      [1n, 4, 10n],
      [2n, 4, 10n],
      // Read at 3, and at 4 three periods later by the monotonic clock: the step is in it.
      [3n, 0, 0n],
      // A period of the monotonic clock between the wakes: before the step, the room clock may
      // have reached 4; it may be lived twice, and is unmetered too.
      [4n, 0, 0n],
    ]);
    const said = r.logs.filter((l) => String(l.msg).startsWith('the room clock stepped back'));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatchObject({
      level: 'warn',
      step_us: String(2n * P),
      signed_to_us: String(B0 + 3n * P),
    });
  });
});

/** The readings of an energy source, logging into an array. */
function readingsOf(energy: EnergySource) {
  const counts = newCounts();
  const logs: Record<string, unknown>[] = [];
  const r = new CounterReadings({ energy, tolerance: 250_000n, log: (l) => logs.push(l), counts });
  return { r, counts, logs };
}

/** Boundary k, seen 1 ms after it on both clocks (or late). */
const boundary = (k: bigint, onTime = true) => ({
  boundary: B0 + k * P,
  at: B0 + k * P + 1000n,
  mono: k * P + 1000n,
  onTime,
});

const span = (k: bigint) => ({ start: B0 + k * P, end: B0 + (k + 1n) * P });

describe("a counter's readings", () => {
  it("a period's energy is the increase between the readings at its two boundaries", async () => {
    const pc = counterTree();
    const { r } = readingsOf(raplSource({ root: pc.root }));
    pc.set(100n);
    await r.readAt(boundary(0n));
    pc.set(350n);
    await r.readAt(boundary(1n));
    expect(r.counted(span(0n))).toEqual({ joules: 250n });
    expect(r.at(B0 + P)?.values).toEqual({ 'intel-rapl:0': '350' });
  });

  it('without a reading at a boundary (none taken, or taken late), the reason', async () => {
    const pc = counterTree();
    const { r } = readingsOf(raplSource({ root: pc.root }));
    await r.readAt(boundary(0n));
    await r.readAt(boundary(1n, false));
    expect(r.counted(span(-1n))).toEqual({ why: 'no reading at the period start' });
    expect(r.counted(span(0n))).toEqual({ why: 'no reading at the period end' });
    expect(r.at(B0 + P)).toBeUndefined();
  });

  it('readings the clocks disagree over by more than the tolerance: the room clock stepped', async () => {
    const pc = counterTree();
    const { r } = readingsOf(raplSource({ root: pc.root }));
    await r.readAt(boundary(0n));
    await r.readAt({ ...boundary(1n), mono: 1000n + P - 250_001n });
    expect(r.counted(span(0n))).toEqual({ why: 'the room clock stepped within the period' });
  });

  it('a counter that cannot be read: counted each time, said once until it reads again', async () => {
    const pc = counterTree();
    const { r, counts, logs } = readingsOf(raplSource({ root: pc.root }));
    const file = join(pc.root, 'intel-rapl:0', 'energy_uj');
    renameSync(file, `${file}.away`);
    await r.readAt(boundary(0n));
    await r.readAt(boundary(1n));
    renameSync(`${file}.away`, file);
    await r.readAt(boundary(2n));
    await r.readAt(boundary(3n));
    expect(counts.sourceErrors).toBe(2);
    expect(logs.map((l) => [l.level, l.msg])).toEqual([
      ['error', 'energy source unreadable; its periods are signed unmetered'],
      [undefined, 'energy source readable again'],
    ]);
    expect(String(logs[0]!.error)).toContain('energy_uj: ENOENT');
    expect([0n, 1n, 2n].map((k) => r.counted(span(k)))).toEqual([
      { why: 'no reading at the period start' },
      { why: 'no reading at the period start' },
      { joules: 0n },
    ]);
  });

  it("restored from the cursor only at the start of the current period, and only a counter's", async () => {
    const pc = counterTree();
    const reading = { values: { 'intel-rapl:0': '40' }, ranges: { 'intel-rapl:0': '99999' } };
    const { r } = readingsOf(raplSource({ root: pc.root }));
    r.restore({ end: B0, reading }, B0 + P); // cut up to an earlier period
    r.restore({ end: B0 + P }, B0 + P); // no reading kept
    expect([r.at(B0), r.at(B0 + P)]).toEqual([undefined, undefined]);
    r.restore({ end: B0 + P, reading }, B0 + P);
    pc.set(100n);
    await r.readAt(boundary(2n));
    // Another process's monotonic clock: no step can be seen across the restart.
    expect(r.counted(span(1n))).toEqual({ joules: 60n });
    const model = readingsOf(modelSource({ idleWatts: 1, nanojoulesPerByte: 0 })).r;
    model.restore({ end: B0 + P, reading }, B0 + P);
    expect(model.at(B0 + P)).toBeUndefined();
  });

  it("a reading of other series than the cursor's: the counter's reason", async () => {
    const pc = counterTree();
    const { r } = readingsOf(raplSource({ root: pc.root }));
    r.restore({ end: B0, reading: { values: { 'intel-rapl:1': '5' } } }, B0);
    await r.readAt(boundary(1n));
    expect(r.counted(span(0n))).toEqual({
      why: 'the series changed (intel-rapl:1 → intel-rapl:0)',
    });
  });

  it('lets go of the readings before a boundary', async () => {
    const pc = counterTree();
    const { r } = readingsOf(raplSource({ root: pc.root }));
    for (const k of [0n, 1n, 2n]) await r.readAt(boundary(k));
    r.dropBefore(B0 + P);
    expect([0n, 1n, 2n].map((k) => r.at(B0 + k * P) !== undefined)).toEqual([false, true, true]);
  });

  it('a source that is not a counter reads nothing and counts nothing', async () => {
    const { r, logs } = readingsOf(modelSource({ idleWatts: 1, nanojoulesPerByte: 0 }));
    await r.readAt(boundary(0n));
    await r.readAt(boundary(1n));
    expect([r.at(B0), r.counted(span(0n)), logs]).toEqual([undefined, undefined, []]);
  });
});
