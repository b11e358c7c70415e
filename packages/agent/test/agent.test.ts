import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { CLASS, type HopRecord, signHopRecord } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AgentConfigError,
  type EnergySource,
  HopAgent,
  type HopAgentOptions,
  metricsText,
  modelSource,
  nginxLogSource,
  noTraffic,
  raplSource,
  SimulatedSource,
} from '../src/index.js';
import { makeUnwritable } from './helpers/read-only.js';
import { ManualClock, makeRoom, type TestRoom, tempDir } from './helpers/room.js';
import { TestSteeringServer } from './helpers/steering.js';

const P = 1_000_000n;
const B0 = 1_800_000_000_000_000n;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function counterTree(): { root: string; set: (uj: bigint) => void } {
  const root = tempDir('wai-powercap-');
  mkdirSync(join(root, 'intel-rapl:0'));
  writeFileSync(join(root, 'intel-rapl:0', 'max_energy_range_uj'), '262143328850\n');
  const set = (uj: bigint) => writeFileSync(join(root, 'intel-rapl:0', 'energy_uj'), `${uj}\n`);
  set(0n);
  return { root, set };
}

interface Rig {
  agent: HopAgent;
  clock: ManualClock;
  mono: ManualClock;
  logs: Record<string, unknown>[];
  at: (k: bigint, extraUs?: bigint) => Promise<void>;
}

function rig(
  room: TestRoom,
  server: TestSteeringServer | string,
  energy: EnergySource,
  spool: string,
  clock: ManualClock,
  mono: ManualClock,
  more: Partial<HopAgentOptions> = {},
): Rig {
  const logs: Record<string, unknown>[] = [];
  const agent = new HopAgent({
    room: room.ctx,
    key: room.hops[0]!,
    period: P,
    energy,
    traffic: noTraffic(),
    servers: [typeof server === 'string' ? server : server.url],
    spool,
    clock: clock.now,
    monotonic: mono.now,
    cutDelay: 0n,
    manual: true,
    backoff: { initialMs: 10, maxMs: 100 },
    log: (l) => logs.push(l),
    ...more,
  });
  cleanups.push(() => agent.stop());
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

async function upServer(room: TestRoom): Promise<TestSteeringServer> {
  const s = new TestSteeringServer(room.ctx);
  await s.up(0);
  cleanups.push(() => s.down());
  return s;
}

/** The spans of records, relative to B0 in periods. */
const spans = (rs: readonly HopRecord[]) => rs.map((r) => [(r.start - B0) / P, (r.end - B0) / P]);

describe('delivery', () => {
  it('with the server down for several periods, every record arrives once, in period order', async () => {
    const room = makeRoom([['energy/ModelBased', 'live/hop']]);
    const server = await upServer(room);
    const r = rig(
      room,
      server,
      modelSource({ idleWatts: '35.5', nanojoulesPerByte: '62' }),
      join(tempDir(), 'spool'),
      new ManualClock(B0 + 1000n),
      new ManualClock(0n),
      // A period's line waits for its record's receipt up to min(L, 5 s): a long lag, so that
      // on a busy machine the line says where the record went rather than that it was late.
      { lag: 60_000_000n },
    );
    await r.agent.start();
    await r.at(1n);
    expect(await r.agent.delivered()).toBe(true);
    await server.down();
    for (const k of [2n, 3n, 4n, 5n]) await r.at(k);
    expect(r.agent.servers[0]!.pending).toBe(4);
    await server.up();
    await r.at(6n);
    expect(await r.agent.delivered()).toBe(true);
    expect(spans(server.records)).toEqual([0n, 1n, 2n, 3n, 4n, 5n].map((k) => [k, k + 1n]));
    expect(server.received.every((x) => x.status === 201)).toBe(true);
    // 35.5 W over 1 s, no traffic: 35 500 000 µJ each.
    expect(
      server.records.every((x) => x.class === CLASS.ModelBased && x.joules === 35_500_000n),
    ).toBe(true);
    const warn = r.logs.filter((l) => l.msg === 'server not taking records; retrying with backoff');
    expect(warn.length).toBe(1);
    const periods = r.logs.filter((l) => l.msg === 'period');
    expect(periods.length).toBe(6);
    expect(periods[0]).toMatchObject({
      joules_uj: '35500000',
      bytes: '0',
      sessions: 0,
      sent: [server.url],
    });
    // The span in the one form of human output, its exact µs beside it; the durations readable.
    const iso = (us: bigint) => new Date(Number(us / 1000n)).toISOString();
    expect(periods[0]).toMatchObject({
      start: iso(B0),
      start_us: String(B0),
      end: iso(B0 + P),
      end_us: String(B0 + P),
    });
    expect(r.logs.find((l) => l.msg === 'started')).toMatchObject({
      period: '1 s',
      period_us: '1000000',
      lag: '1 min',
      lag_us: '60000000',
    });
  });

  it('moves a record a server refuses to refused/ with its reason, logged once', async () => {
    const room = makeRoom([['energy/ModelBased', 'live/hop']]);
    const other = makeRoom([['live/hop']]); // another room: its server refuses wrong_room
    const refusing = new TestSteeringServer(other.ctx);
    await refusing.up(0);
    cleanups.push(() => refusing.down());
    const server = await upServer(room);
    const spool = join(tempDir(), 'spool');
    const r = rig(
      room,
      server,
      modelSource({ idleWatts: 1, nanojoulesPerByte: 0 }),
      spool,
      new ManualClock(B0 + 1000n),
      new ManualClock(0n),
      {
        servers: [server.url, refusing.url],
      },
    );
    await r.agent.start();
    await r.at(1n);
    await r.at(2n);
    expect(await r.agent.delivered()).toBe(true);
    expect(spans(server.records)).toEqual([
      [0n, 1n],
      [1n, 2n],
    ]);
    expect(refusing.refused).toEqual(['wrong_room', 'wrong_room']);
    const refused = readdirSync(join(spool, 'refused')).sort();
    expect(refused.filter((n) => n.endsWith('.wmh')).length).toBe(2);
    const reason = readFileSync(
      join(spool, 'refused', refused.find((n) => n.endsWith('.reason'))!),
      'utf8',
    );
    expect(reason).toContain(`${refusing.url} wrong_room`);
    expect(r.logs.filter((l) => l.msg === 'record refused').length).toBe(2);
    // Every server settled them: done.
    expect(readdirSync(join(spool, 'done')).length).toBe(2);
    expect(readdirSync(join(spool, 'records')).filter((n) => n.endsWith('.wmh'))).toEqual([]);
  });
  it('resends at restart what the spool holds, once, in period order', async () => {
    const room = makeRoom([['energy/ModelBased', 'live/hop']]);
    const server = await upServer(room);
    await server.down();
    const spool = join(tempDir(), 'spool');
    const clock = new ManualClock(B0 + 1000n);
    const energy = modelSource({ idleWatts: 2, nanojoulesPerByte: 0 });
    const a = rig(room, server, energy, spool, clock, new ManualClock(0n));
    await a.agent.start();
    await a.at(1n);
    await a.at(2n);
    await a.agent.stop();
    expect(readdirSync(join(spool, 'records')).filter((n) => n.endsWith('.wmh')).length).toBe(2);
    await server.up();
    const b = rig(room, server, energy, spool, clock, new ManualClock(0n));
    await b.agent.start();
    expect(await b.agent.delivered()).toBe(true);
    expect(b.logs.some((l) => l.msg === 'resending the spool' && l.records === 2)).toBe(true);
    await b.at(3n);
    expect(await b.agent.delivered()).toBe(true);
    expect(spans(server.records)).toEqual([
      [0n, 1n],
      [1n, 2n],
      [2n, 3n],
    ]);
    expect(server.received.length).toBe(3);
  });
});

describe('restart', () => {
  it('resumes from the spool: the missed periods unmetered, none twice, none missing', async () => {
    const room = makeRoom([['energy/OnChipCounter', 'live/hop']]);
    const server = await upServer(room);
    const pc = counterTree();
    const spool = join(tempDir(), 'spool');
    const clock = new ManualClock(B0 + P / 2n);
    const a = rig(room, server, raplSource({ root: pc.root }), spool, clock, new ManualClock(0n));
    await a.agent.start();
    pc.set(100n);
    await a.at(1n);
    pc.set(300n);
    await a.at(2n);
    pc.set(600n);
    await a.at(3n);
    expect(await a.agent.delivered()).toBe(true);
    await a.agent.stop();
    // Down from 3.0 to 5.4; the counter kept counting.
    pc.set(5_000n);
    clock.set(B0 + 5n * P + 400_000n);
    const b = rig(
      room,
      server,
      raplSource({ root: pc.root }),
      spool,
      clock,
      new ManualClock(9n * P),
    );
    await b.agent.start();
    pc.set(7_000n);
    await b.at(6n);
    pc.set(7_777n);
    await b.at(7n);
    expect(await b.agent.delivered()).toBe(true);
    const got = server.records.map((x) => [(x.start - B0) / P, x.class, x.joules]);
    expect(got).toEqual([
      [1n, 4, 200n],
      [2n, 4, 300n],
      [3n, 0, 0n], // the agent was down at its end
      [4n, 0, 0n],
      [5n, 0, 0n], // the agent started within it
      [6n, 4, 777n],
    ]);
    expect(new Set(server.received.map((x) => x.digest)).size).toBe(server.received.length);
  });

  it('restarted within the period after the last cut, states it from the reading kept', async () => {
    const room = makeRoom([['energy/OnChipCounter', 'live/hop']]);
    const server = await upServer(room);
    const pc = counterTree();
    const spool = join(tempDir(), 'spool');
    const clock = new ManualClock(B0 + P / 2n);
    const a = rig(room, server, raplSource({ root: pc.root }), spool, clock, new ManualClock(0n));
    await a.agent.start();
    pc.set(1_000n);
    await a.at(1n);
    pc.set(2_000n);
    await a.at(2n);
    await a.agent.stop();
    clock.set(B0 + 2n * P + 600_000n);
    const b = rig(
      room,
      server,
      raplSource({ root: pc.root }),
      spool,
      clock,
      new ManualClock(50n * P),
    );
    await b.agent.start();
    pc.set(2_500n);
    await b.at(3n);
    expect(await b.agent.delivered()).toBe(true);
    expect(server.records.map((x) => [(x.start - B0) / P, x.class, x.joules])).toEqual([
      [1n, 4, 1_000n],
      [2n, 4, 500n],
    ]);
  });
});

describe('a step of the room clock', () => {
  it('forward: the periods it spans are signed unmetered, none skipped', async () => {
    const room = makeRoom([['energy/OnChipCounter', 'live/hop']]);
    const server = await upServer(room);
    const pc = counterTree();
    const clock = new ManualClock(B0 + P / 2n);
    const mono = new ManualClock(0n);
    const r = rig(
      room,
      server,
      raplSource({ root: pc.root }),
      join(tempDir(), 'spool'),
      clock,
      mono,
    );
    await r.agent.start();
    pc.set(10n);
    await r.at(1n);
    pc.set(20n);
    await r.at(2n);
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
    expect(server.records.map((x) => [(x.start - B0) / P, x.class, x.joules])).toEqual([
      [1n, 4, 10n],
      [2n, 0, 0n],
      [3n, 0, 0n],
      [4n, 0, 0n],
      [5n, 4, 15n],
    ]);
  });

  it('back: no span is cut twice; the period the step falls in is unmetered', async () => {
    const room = makeRoom([['energy/OnChipCounter', 'live/hop']]);
    const server = await upServer(room);
    const pc = counterTree();
    const clock = new ManualClock(B0 + P / 2n);
    const mono = new ManualClock(0n);
    const r = rig(
      room,
      server,
      raplSource({ root: pc.root }),
      join(tempDir(), 'spool'),
      clock,
      mono,
    );
    await r.agent.start();
    pc.set(10n);
    await r.at(1n);
    pc.set(20n);
    await r.at(2n);
    pc.set(30n);
    await r.at(3n);
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
    expect(server.records.map((x) => [(x.start - B0) / P, x.class, x.joules])).toEqual([
      [1n, 4, 10n],
      [2n, 4, 10n],
      // Read at 3, and at 4 three periods later by the monotonic clock: the step is in it.
      [3n, 0, 0n],
      [4n, 4, 20n],
    ]);
  });
});

describe('key checks at start', () => {
  const cases: [string, readonly string[], RegExp][] = [
    [
      'no energy/ label for its class',
      ['live/hop', 'energy/ModelBased'],
      /does not grant energy\/OnChipCounter/,
    ],
    ['no live/hop', ['energy/OnChipCounter'], /does not grant live\/hop/],
  ];
  for (const [what, grants, message] of cases) {
    it(`refuses a key with ${what}, naming the entry`, async () => {
      const room = makeRoom([grants]);
      const pc = counterTree();
      const r = rig(
        room,
        'http://127.0.0.1:9',
        raplSource({ root: pc.root }),
        join(tempDir(), 's'),
        new ManualClock(B0),
        new ManualClock(0n),
      );
      const err = await r.agent.start().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(AgentConfigError);
      expect(String((err as Error).message)).toMatch(message);
      expect(String((err as Error).message)).toContain(
        Buffer.from(room.hops[0]!.publicKey).toString('hex'),
      );
    });
  }

  it('refuses a key the key log does not list', async () => {
    const room = makeRoom([['live/hop']]);
    const stranger = makeRoom([['live/hop']]).hops[0]!;
    const r = rig(
      room,
      'http://127.0.0.1:9',
      modelSource({ idleWatts: 1, nanojoulesPerByte: 1 }),
      join(tempDir(), 's'),
      new ManualClock(B0),
      new ManualClock(0n),
      { key: stranger },
    );
    await expect(r.agent.start()).rejects.toThrow(
      /does not list the hop's key [0-9a-f]{64}: add it with live\/hop and energy\/ModelBased/,
    );
  });

  it('lets an unmetered hop start with live/hop alone', async () => {
    const room = makeRoom([['live/hop']]);
    const server = await upServer(room);
    const sim = new SimulatedSource({
      class: 0,
      place: 2,
      nanojoulesPerByte: 0,
      idleWatts: 0,
      sessions: () => 10,
    });
    const r = rig(
      room,
      server,
      sim.energy,
      join(tempDir(), 's'),
      new ManualClock(B0 + 1000n),
      new ManualClock(0n),
      { traffic: sim },
    );
    await r.agent.start();
    await r.at(1n);
    expect(await r.agent.delivered()).toBe(true);
    expect(server.records.map((x) => [x.class, x.joules, x.sessions])).toEqual([[0, 0n, 10]]);
  });
});

/** A line of the shipped nginx log format, logged at `us` (room clock µs), of `bytes` sent. */
function logLine(us: bigint, bytes: number, client = '10.0.0.1'): string {
  const msec = `${us / 1_000_000n}.${String((us % 1_000_000n) / 1000n).padStart(3, '0')}`;
  return `${JSON.stringify({ msec, request_uri: '/seg/1.m4s', status: '200', bytes_sent: String(bytes), request_time: '0.002', remote_addr: client, http_user_agent: 'player' })}\n`;
}

const trackBytes = (r: HopRecord) => r.tracks.reduce((n, t) => n + t.bytes, 0n);

describe('the spool', () => {
  it('unwritable for a while: the periods due meanwhile are signed unmetered with all their bytes, none moved to the next', async () => {
    const room = makeRoom([['energy/ModelBased', 'live/hop']]);
    const server = await upServer(room);
    const dir = tempDir();
    const spool = join(dir, 'spool');
    const log = join(dir, 'access.log');
    writeFileSync(log, '');
    const r = rig(
      room,
      server,
      modelSource({ idleWatts: '10', nanojoulesPerByte: '1' }),
      spool,
      new ManualClock(B0 + 1000n),
      new ManualClock(0n),
      {
        traffic: nginxLogSource({
          path: log,
          routes: [{ pattern: /^\/seg\//, track: 1, kind: 1 }],
          pollMs: 60_000,
        }),
      },
    );
    // Requests logged within period k, 1 ms apart.
    const put = (k: bigint, ...bytes: number[]) =>
      appendFileSync(
        log,
        bytes.map((b, i) => logLine(B0 + k * P + BigInt(i + 1) * 1000n, b)).join(''),
      );
    await r.agent.start();
    put(0n, 1000, 2000);
    await r.at(1n);
    expect(await r.agent.delivered()).toBe(true);
    put(1n, 48_000, 49_293); // 97 293 bytes in period 1
    const unwritable = makeUnwritable(spool);
    let restored = false;
    cleanups.push(async () => {
      if (!restored) unwritable.restore();
    });
    await r.at(2n); // period 1 is due: its record cannot be written
    put(2n, 500);
    await r.at(3n); // periods 1 and 2 are due: still not
    unwritable.restore();
    restored = true;
    put(3n, 700);
    await r.at(4n); // periods 1 to 3 are cut
    expect(await r.agent.delivered()).toBe(true);
    expect(
      server.records.map((x) => [(x.start - B0) / P, x.class, trackBytes(x), x.joules]),
    ).toEqual([
      // 10 W over 1 s, and 1 nJ for each byte, in whole µJ.
      [0n, CLASS.ModelBased, 3000n, 10_000_003n],
      [1n, 0, 97_293n, 0n],
      [2n, 0, 500n, 0n],
      [3n, CLASS.ModelBased, 700n, 10_000_000n],
    ]);
    const faults = r.logs.filter((l) => String(l.msg).startsWith('spool not writable'));
    expect(faults.length).toBe(1);
    expect(String(faults[0]!.error)).toContain(
      `spool ${join(spool, 'records')}: cannot write it (${unwritable.code})`,
    );
    expect(r.logs.filter((l) => l.msg === 'spool writable again').length).toBe(1);
    const periods = r.logs.filter((l) => l.msg === 'period');
    expect(periods.map((l) => [l.class, l.bytes, l.unmetered])).toEqual([
      [CLASS.ModelBased, '3000', undefined],
      [0, '97293', `the spool could not be written when the period was due (${unwritable.code})`],
      [0, '500', `the spool could not be written when the period was due (${unwritable.code})`],
      [CLASS.ModelBased, '700', undefined],
    ]);
    expect(metricsText(r.agent)).toContain('\nwai_agent_spool_errors_total 2\n');
  });

  it('a counter: the periods due while unwritable are unmetered, the next one metered from readings kept', async () => {
    const room = makeRoom([['energy/OnChipCounter', 'live/hop']]);
    const server = await upServer(room);
    const pc = counterTree();
    const spool = join(tempDir(), 'spool');
    const r = rig(
      room,
      server,
      raplSource({ root: pc.root }),
      spool,
      new ManualClock(B0 + P / 2n),
      new ManualClock(0n),
    );
    await r.agent.start();
    pc.set(100n);
    await r.at(1n);
    pc.set(300n);
    await r.at(2n);
    expect(await r.agent.delivered()).toBe(true);
    const unwritable = makeUnwritable(spool);
    let restored = false;
    cleanups.push(async () => {
      if (!restored) unwritable.restore();
    });
    pc.set(600n);
    await r.at(3n);
    unwritable.restore();
    restored = true;
    pc.set(1_000n);
    await r.at(4n);
    pc.set(1_500n);
    await r.at(5n);
    expect(await r.agent.delivered()).toBe(true);
    expect(server.records.map((x) => [(x.start - B0) / P, x.class, x.joules])).toEqual([
      [1n, 4, 200n],
      [2n, 0, 0n], // due when the spool could not be written
      [3n, 4, 400n], // its readings were kept: from 600 to 1000
      [4n, 4, 500n],
    ]);
  });

  it('a spool file that does not read goes to refused/, logged once and counted; the rest is sent', async () => {
    const room = makeRoom([
      ['energy/ModelBased', 'live/hop'],
      ['energy/ModelBased', 'live/hop'],
    ]);
    const server = await upServer(room);
    const spool = join(tempDir(), 'spool');
    const clock = new ManualClock(B0 + 1000n);
    const energy = modelSource({ idleWatts: 2, nanojoulesPerByte: 0 });
    await server.down();
    const a = rig(room, server, energy, spool, clock, new ManualClock(0n));
    await a.agent.start();
    await a.at(1n);
    await a.at(2n);
    await a.agent.stop();
    const records = join(spool, 'records');
    const [first, second] = readdirSync(records).sort();
    // The second record cut short; files that are not this hop's records beside them.
    writeFileSync(join(records, second!), readFileSync(join(records, second!)).subarray(0, 100));
    const other = signHopRecord(
      {
        room: room.roomId,
        hop: room.hops[1]!.publicKey,
        start: B0 + 7n * P,
        end: B0 + 8n * P,
        sessions: 0,
        class: 0,
        joules: 0n,
        subscriber_us: new Array<bigint>(8).fill(0n),
        tracks: [],
      },
      room.hops[1]!.secretKey,
      { backend: nodeBackend },
    );
    const otherName = `${String(B0 + 7n * P).padStart(20, '0')}-${nodeBackend.sha256(other.subarray(0, other.length - 64)).reduce((h, b) => h + b.toString(16).padStart(2, '0'), '')}.wmh`;
    writeFileSync(join(records, otherName), other);
    writeFileSync(join(records, 'notes.txt'), 'hello');
    // In done/, a name that sorts last and would put the cursor past the end of time.
    const future = `99999999999999999999-${'ab'.repeat(32)}.wmh`;
    writeFileSync(join(spool, 'done', future), new Uint8Array(300).fill(255));
    writeFileSync(join(spool, 'cursor.json'), '{"end": "18446744073709551615"');
    await server.up();
    const b = rig(room, server, energy, spool, clock, new ManualClock(0n));
    clock.set(B0 + 2n * P + 1000n);
    await b.agent.start();
    await b.at(3n);
    expect(await b.agent.delivered()).toBe(true);
    // The damaged record's span is cut again (the cursor follows the records that read).
    expect(spans(server.records)).toEqual([0n, 1n, 2n].map((k) => [k, k + 1n]));
    expect(server.received.length).toBe(3);
    const said = b.logs.filter((l) => l.msg === 'spool file does not read: moved to refused/');
    expect(
      said.map((l) => [String(l.file).split('/').slice(-2).join('/'), l.reason]).sort(),
    ).toEqual(
      [
        [`records/${second}`, 'does not read as a per-hop record: truncated at joules'],
        [
          `records/${otherName}`,
          `a record of another hop (${Buffer.from(room.hops[1]!.publicKey).toString('hex')})`,
        ],
        ['records/notes.txt', 'its name is not <start>-<digest>.wmh'],
        [`done/${future}`, 'does not read as a per-hop record: malformed at magic'],
        ['spool/cursor.json', 'cursor.json is not JSON'],
      ].sort(),
    );
    const refused = readdirSync(join(spool, 'refused'));
    for (const n of [second!, otherName, 'notes.txt', future, 'cursor.json']) {
      expect(refused).toContain(n);
      expect(readFileSync(join(spool, 'refused', `${n}.reason`), 'utf8')).toMatch(/^spool /);
    }
    expect(existsSync(join(records, first!))).toBe(false); // taken: done
    expect(metricsText(b.agent)).toContain('\nwai_agent_spool_files_refused_total 5\n');
  });
});
