/**
 * A hop agent for a test: driven by hand (`manual`) on clocks the test sets, logging into an
 * array, posting to a {@link TestSteeringServer}; and what its tests share (a powercap tree the
 * test writes, a line of the shipped nginx log format, the spans of records). Everything it
 * starts is stopped after each test.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HopRecord } from '@wai-steering/wire';
import { afterEach } from 'vitest';
import { signPeriod } from '../../src/agent/record.js';
import {
  type EnergySource,
  emptyTraffic,
  HopAgent,
  type HopAgentOptions,
  modelSource,
  noTraffic,
  raplSource,
} from '../../src/index.js';
import { makeUnwritable, type Unwritable } from './read-only.js';
import { ManualClock, makeRoom, type TestRoom, tempDir } from './room.js';
import { TestSteeringServer } from './steering.js';

/** P, the period of the rig's agents: 1 s. */
export const P = 1_000_000n;
/** A boundary of the room clock the rig's periods are counted from. */
export const B0 = 1_800_000_000_000_000n;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Runs `c` after the test (in the reverse order of registration). */
export function onCleanup(c: () => Promise<void>): void {
  cleanups.push(c);
}

/** A powercap tree with one zone, whose `energy_uj` the test sets. */
export function counterTree(): { root: string; set: (uj: bigint) => void } {
  const root = tempDir('wai-powercap-');
  mkdirSync(join(root, 'intel-rapl:0'));
  writeFileSync(join(root, 'intel-rapl:0', 'max_energy_range_uj'), '262143328850\n');
  const set = (uj: bigint) => writeFileSync(join(root, 'intel-rapl:0', 'energy_uj'), `${uj}\n`);
  set(0n);
  return { root, set };
}

export interface Rig {
  agent: HopAgent;
  clock: ManualClock;
  mono: ManualClock;
  logs: Record<string, unknown>[];
  /** Moves both clocks to just after boundary k (by `extraUs`, 1 ms by default), and polls. */
  at: (k: bigint, extraUs?: bigint) => Promise<void>;
}

/** Options of {@link rig}: the agent's, but for its clocks, which the test sets. */
export interface RigOptions extends Omit<Partial<HopAgentOptions>, 'clock' | 'monotonic'> {
  /** The room clock (default: 1 ms after B0). */
  readonly clock?: ManualClock;
  /** The monotonic clock (default: the room clock less B0, so that both move together). */
  readonly mono?: ManualClock;
}

/**
 * A manual agent of the room's first hop, with a spool of its own unless `spool` is given,
 * stopped after the test.
 */
export function rig(
  room: TestRoom,
  server: TestSteeringServer | string,
  energy: EnergySource,
  o: RigOptions = {},
): Rig {
  const { clock = new ManualClock(B0 + 1000n), mono: given, ...more } = o;
  // The monotonic clock at B0 + its value: both clocks move together unless a test steps one.
  const mono = given ?? new ManualClock(clock.us - B0);
  const logs: Record<string, unknown>[] = [];
  const agent = new HopAgent({
    room: room.ctx,
    key: room.hops[0]!,
    period: P,
    energy,
    traffic: noTraffic(),
    servers: [typeof server === 'string' ? server : server.url],
    spool: join(tempDir(), 'spool'),
    clock: clock.now,
    monotonic: mono.now,
    cutDelay: 0n,
    manual: true,
    backoff: { initialMs: 10, maxMs: 100 },
    log: (l) => logs.push(l),
    ...more,
  });
  onCleanup(() => agent.stop());
  return {
    agent,
    clock,
    mono,
    logs,
    // Both clocks move together to just after boundary k.
    at: async (k, extraUs = 1000n) => {
      clock.set(B0 + k * P + extraUs);
      mono.set(k * P + extraUs);
      await agent.poll();
    },
  };
}

/**
 * A counter hop: the first hop of a room that grants it `energy/OnChipCounter`, reading RAPL
 * through a powercap tree the test writes, posting to a steering server of the room. `hop()`
 * makes its agent (again after a restart: the same spool and clocks), half a period into B0's.
 */
export async function counterHop(o: RigOptions = {}) {
  const room = makeRoom([['energy/OnChipCounter', 'live/hop']]);
  const server = await upServer(room);
  const pc = counterTree();
  const clock = o.clock ?? new ManualClock(B0 + P / 2n);
  const spool = o.spool ?? join(tempDir(), 'spool');
  const hop = (more: RigOptions = {}) =>
    rig(room, server, raplSource({ root: pc.root }), { ...o, spool, clock, ...more });
  return { room, server, pc, clock, spool, hop };
}

/** For each `[k, uj]`: the counter at `uj` when the agent reads boundary k. */
export async function readEach(
  r: Rig,
  pc: { set: (uj: bigint) => void },
  steps: readonly (readonly [bigint, bigint])[],
): Promise<void> {
  for (const [k, uj] of steps) {
    pc.set(uj);
    await r.at(k);
  }
}

/** This hop's signed record of period k (a model of 1 W, no traffic), and its spool item. */
export function recordOf(room: TestRoom, k: bigint, hop = 0) {
  const span = { start: B0 + k * P, end: B0 + (k + 1n) * P };
  const rec = signPeriod(
    {
      room: room.roomId,
      key: room.hops[hop]!,
      energy: modelSource({ idleWatts: 1, nanojoulesPerByte: 0 }),
    },
    { span, traffic: emptyTraffic() },
  );
  return { rec, item: { name: rec.name, start: span.start, end: span.end, bytes: rec.bytes } };
}

/** {@link makeUnwritable}, made writable again after the test when the test has not. */
export function unwritable(dir: string, prefer?: 'EROFS' | 'EPERM'): Unwritable {
  const u = makeUnwritable(dir, prefer);
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    u.restore();
  };
  onCleanup(async () => restore());
  return { code: u.code, restore };
}

/** A steering server of the room, up on a free port, taken down after the test. */
export async function upServer(room: TestRoom): Promise<TestSteeringServer> {
  const s = new TestSteeringServer(room.ctx);
  await s.up(0);
  onCleanup(() => s.down());
  return s;
}

/** The spans of records, relative to B0 in periods. */
export const spans = (rs: readonly HopRecord[]) =>
  rs.map((r) => [(r.start - B0) / P, (r.end - B0) / P]);

/** The start, class and joules of records, the start relative to B0 in periods. */
export const stated = (rs: readonly HopRecord[]) =>
  rs.map((r) => [(r.start - B0) / P, r.class, r.joules]);

/** A line of the shipped nginx log format, logged at `us` (room clock µs), of `bytes` sent. */
export function logLine(
  us: bigint,
  bytes: number,
  o: { client?: string; uri?: string; agent?: string; requestTime?: string } = {},
): string {
  const msec = `${us / 1_000_000n}.${String((us % 1_000_000n) / 1000n).padStart(3, '0')}`;
  return `${JSON.stringify({
    msec,
    request_uri: o.uri ?? '/seg/1.m4s',
    status: '200',
    bytes_sent: String(bytes),
    request_time: o.requestTime ?? '0.002',
    remote_addr: o.client ?? '10.0.0.1',
    http_user_agent: o.agent ?? 'player',
  })}\n`;
}
