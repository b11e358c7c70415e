import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLASS, toHex } from '@wai-steering/wire';
import { describe, expect, it } from 'vitest';
import {
  AgentConfigError,
  HopAgent,
  modelSource,
  nginxLogSource,
  noTraffic,
  raplSource,
  SimulatedSource,
} from '../../src/index.js';
import { B0, counterHop, counterTree, P, readEach, rig, stated, upServer } from '../helpers/rig.js';
import { ManualClock, makeRoom, tempDir } from '../helpers/room.js';

describe('restart', () => {
  it('resumes from the spool: the missed periods unmetered, none twice, none missing', async () => {
    const { server, pc, clock, hop } = await counterHop();
    const a = hop();
    await a.agent.start();
    await readEach(a, pc, [
      [1n, 100n],
      [2n, 300n],
      [3n, 600n],
    ]);
    expect(await a.agent.delivered()).toBe(true);
    await a.agent.stop();
    // Down from 3.0 to 5.4; the counter kept counting.
    pc.set(5_000n);
    clock.set(B0 + 5n * P + 400_000n);
    const b = hop({ mono: new ManualClock(5n * P + 400_000n) });
    await b.agent.start();
    await readEach(b, pc, [
      [6n, 7_000n],
      [7n, 7_777n],
    ]);
    expect(await b.agent.delivered()).toBe(true);
    expect(stated(server.records)).toEqual([
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
    const { server, pc, clock, hop } = await counterHop();
    const a = hop();
    await a.agent.start();
    await readEach(a, pc, [
      [1n, 1_000n],
      [2n, 2_000n],
    ]);
    await a.agent.stop();
    clock.set(B0 + 2n * P + 600_000n);
    const b = hop({ mono: new ManualClock(2n * P + 600_000n) });
    await b.agent.start();
    await readEach(b, pc, [[3n, 2_500n]]);
    expect(await b.agent.delivered()).toBe(true);
    expect(stated(server.records)).toEqual([
      [1n, 4, 1_000n],
      [2n, 4, 500n],
    ]);
  });

  it('more than `backfill` periods down: fills that many, and says what it left out', async () => {
    const room = makeRoom([['energy/ModelBased', 'live/hop']]);
    const server = await upServer(room);
    const spool = join(tempDir(), 'spool');
    const clock = new ManualClock(B0 + 1000n);
    const energy = modelSource({ idleWatts: 1, nanojoulesPerByte: 0 });
    const a = rig(room, server, energy, { spool, clock });
    await a.agent.start();
    await a.at(1n);
    await a.agent.stop();
    clock.set(B0 + 9n * P + 1000n);
    const b = rig(room, server, energy, { spool, clock, backfill: 3 });
    await b.agent.start();
    expect(await b.agent.delivered()).toBe(true);
    expect(b.logs.filter((l) => l.level === 'warn')).toMatchObject([
      {
        msg: 'periods not filled: more than the backfill limit since the last record',
        from_us: String(B0 + P),
        to_us: String(B0 + 6n * P),
      },
    ]);
    expect(b.logs.find((l) => l.msg === 'resuming')).toMatchObject({
      from_us: String(B0 + 6n * P),
    });
    expect(stated(server.records).map(([k]) => k)).toEqual([0n, 6n, 7n, 8n]);
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
      const r = rig(room, 'http://127.0.0.1:9', raplSource({ root: pc.root }), {
        spool: join(tempDir(), 's'),
        clock: new ManualClock(B0),
      });
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
    const r = rig(room, 'http://127.0.0.1:9', modelSource({ idleWatts: 1, nanojoulesPerByte: 1 }), {
      spool: join(tempDir(), 's'),
      clock: new ManualClock(B0),
      key: stranger,
    });
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
    const r = rig(room, server, sim.energy, { spool: join(tempDir(), 's'), traffic: sim });
    await r.agent.start();
    await r.at(1n);
    expect(await r.agent.delivered()).toBe(true);
    expect(server.records.map((x) => [x.class, x.joules, x.sessions])).toEqual([[0, 0n, 10]]);
  });
});

describe('the sources at start', () => {
  it('an energy counter that cannot be read refuses the start, naming it', async () => {
    const room = makeRoom([['energy/OnChipCounter', 'live/hop']]);
    const root = tempDir('wai-powercap-');
    mkdirSync(join(root, 'intel-rapl:0')); // no energy_uj
    const spool = join(tempDir(), 'spool');
    const r = rig(room, 'http://127.0.0.1:9', raplSource({ root }), {
      spool,
      clock: new ManualClock(B0),
    });
    const err = await r.agent.start().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AgentConfigError);
    expect((err as Error).message).toBe(
      `energy source rapl ${join(root, 'intel-rapl:0')}: cannot read ${join(root, 'intel-rapl:0', 'energy_uj')}: ENOENT`,
    );
    expect(existsSync(spool)).toBe(false); // refused before the spool is opened
  });

  it('a traffic source that cannot start refuses the start, naming it', async () => {
    const room = makeRoom([['energy/ModelBased', 'live/hop']]);
    const log = join(tempDir(), 'missing.log');
    const traffic = nginxLogSource({ path: log, routes: [{ pattern: /^\//, track: 1, kind: 1 }] });
    const r = rig(room, 'http://127.0.0.1:9', modelSource({ idleWatts: 1, nanojoulesPerByte: 0 }), {
      clock: new ManualClock(B0),
      traffic,
    });
    await expect(r.agent.start()).rejects.toThrow(
      new AgentConfigError(`traffic source nginx ${log}: cannot read ${log}: ENOENT`),
    );
  });
});

describe('the agent', () => {
  it('refuses misuse with a TypeError', async () => {
    const room = makeRoom([['energy/ModelBased', 'live/hop']]);
    const o = {
      room: room.ctx,
      key: room.hops[0]!,
      period: P,
      energy: modelSource({ idleWatts: 1, nanojoulesPerByte: 0 }),
      traffic: noTraffic(),
      servers: [],
      manual: true,
      log: () => {},
    };
    expect(() => new HopAgent({ ...o, period: 0n, dryRun: true })).toThrow(
      new TypeError('period: expected a positive number of µs'),
    );
    expect(() => new HopAgent(o)).toThrow(new TypeError('spool: required unless dryRun'));
    const agent = new HopAgent({ ...o, dryRun: true, clock: () => B0 });
    await expect(agent.cutOnce({ start: B0, end: B0 })).rejects.toThrow(
      new TypeError('cutOnce: the span ends before it starts'),
    );
    await agent.start();
    await expect(agent.start()).rejects.toThrow(new TypeError('the agent is started'));
    await expect(agent.cutOnce({ start: B0 - P, end: B0 })).rejects.toThrow(
      new TypeError('cutOnce: the agent is started'),
    );
    await agent.stop();
  });

  it('says how it starts: the hop, its sources, P and L', async () => {
    const room = makeRoom([['energy/ModelBased', 'live/hop']]);
    const spool = join(tempDir(), 'spool');
    const r = rig(room, 'http://127.0.0.1:9', modelSource({ idleWatts: 1, nanojoulesPerByte: 2 }), {
      spool,
      lag: 500_000n,
    });
    await r.agent.start();
    expect(r.logs.filter((l) => l.msg === 'started')).toEqual([
      {
        time: expect.any(String),
        level: 'info',
        msg: 'started',
        hop: toHex(room.hops[0]!.publicKey),
        class: CLASS.ModelBased,
        energy: 'model 1 W idle + 2 nJ/B',
        traffic: 'none',
        period: '1 s',
        period_us: '1000000',
        lag: '500 ms',
        lag_us: '500000',
        servers: ['http://127.0.0.1:9'],
        spool,
        dryRun: false,
      },
    ]);
    expect([r.agent.P, r.agent.L, r.agent.class]).toEqual([P, 500_000n, CLASS.ModelBased]);
  });

  it('healthy while the last period cut ended at most one period ago', async () => {
    const room = makeRoom([['energy/ModelBased', 'live/hop']]);
    const server = await upServer(room);
    const r = rig(room, server, modelSource({ idleWatts: 1, nanojoulesPerByte: 0 }));
    expect(r.agent.health().ok).toBe(false); // not started
    await r.agent.start();
    await r.at(1n);
    expect(await r.agent.delivered()).toBe(true);
    expect(r.agent.health()).toEqual({ ok: true, lastEnd: B0 + P, pending: { [server.url]: 0 } });
    r.clock.set(B0 + 2n * P + 999_999n); // period 1 not cut yet: still within one period
    expect(r.agent.health().ok).toBe(true);
    r.clock.set(B0 + 3n * P);
    expect(r.agent.health().ok).toBe(false);
    await r.at(3n);
    expect(r.agent.health().ok).toBe(true);
    await r.agent.stop();
    expect(r.agent.health().ok).toBe(false);
  });

  it('a dry run cuts and signs every period, but neither spools nor sends', async () => {
    const room = makeRoom([['energy/ModelBased', 'live/hop']]);
    const server = await upServer(room);
    const spool = join(tempDir(), 'spool');
    const cut: bigint[] = [];
    const r = rig(room, server, modelSource({ idleWatts: 1, nanojoulesPerByte: 0 }), {
      spool,
      dryRun: true,
      onRecord: (rec) => cut.push((rec.span.start - B0) / P),
    });
    await r.agent.start();
    await r.at(1n);
    await r.at(2n);
    await r.agent.stop();
    expect(cut).toEqual([0n, 1n]);
    expect(r.logs.filter((l) => l.msg === 'period')).toMatchObject([
      { class: CLASS.ModelBased, sent: [], pending: [], refused: [], dryRun: true },
      { class: CLASS.ModelBased, dryRun: true },
    ]);
    expect([existsSync(spool), server.received.length, r.agent.servers.length]).toEqual([
      false,
      0,
      0,
    ]);
  });
});

describe('--once', () => {
  it('a model states a span already over, at once', async () => {
    const room = makeRoom([['energy/ModelBased', 'live/hop']]);
    const spool = join(tempDir(), 'spool');
    const agent = new HopAgent({
      room: room.ctx,
      key: room.hops[0]!,
      period: P,
      energy: modelSource({ idleWatts: 3, nanojoulesPerByte: 0 }),
      traffic: noTraffic(),
      servers: ['http://127.0.0.1:9'],
      spool,
      clock: () => B0 + 10n * P,
      log: () => {},
    });
    const rec = await agent.cutOnce({ start: B0, end: B0 + 2n * P });
    expect(rec.fields).toMatchObject({ class: CLASS.ModelBased, joules: 6_000_000n, start: B0 });
    expect(rec.unmetered).toBeUndefined();
    expect(existsSync(spool)).toBe(false);
  });

  it('a counter cannot state a span it did not see begin: the unmetered marker, and why', async () => {
    const room = makeRoom([['energy/OnChipCounter', 'live/hop']]);
    const pc = counterTree();
    const log = join(tempDir(), 'access.log');
    writeFileSync(log, '');
    const agent = new HopAgent({
      room: room.ctx,
      key: room.hops[0]!,
      period: P,
      energy: raplSource({ root: pc.root }),
      traffic: nginxLogSource({ path: log, routes: [{ pattern: /^\//, track: 1, kind: 1 }] }),
      servers: ['http://127.0.0.1:9'],
      dryRun: true,
      clock: () => B0 + 10n * P,
      log: () => {},
    });
    const rec = await agent.cutOnce({ start: B0, end: B0 + P });
    expect([rec.fields.class, rec.fields.joules, rec.unmetered]).toEqual([
      0,
      0n,
      'the span began before the agent read the counter',
    ]);
  });
});
