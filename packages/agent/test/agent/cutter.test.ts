import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLASS, type HopRecord } from '@wai-steering/wire';
import { describe, expect, it } from 'vitest';
import {
  emptyTraffic,
  metricsText,
  modelSource,
  nginxLogSource,
  SourceError,
  type Traffic,
  type TrafficSource,
} from '../../src/index.js';
import {
  B0,
  counterHop,
  logLine,
  P,
  readEach,
  rig,
  stated,
  unwritable,
  upServer,
} from '../helpers/rig.js';
import { makeRoom, tempDir } from '../helpers/room.js';

const trackBytes = (r: HopRecord) => r.tracks.reduce((n, t) => n + t.bytes, 0n);

describe('the spool cannot be written', () => {
  it('unwritable for a while: the periods due meanwhile are signed unmetered with all their bytes, none moved to the next', async () => {
    const room = makeRoom([['energy/ModelBased', 'live/hop']]);
    const server = await upServer(room);
    const dir = tempDir();
    const spool = join(dir, 'spool');
    const log = join(dir, 'access.log');
    writeFileSync(log, '');
    const r = rig(room, server, modelSource({ idleWatts: '10', nanojoulesPerByte: '1' }), {
      spool,
      traffic: nginxLogSource({
        path: log,
        routes: [{ pattern: /^\/seg\//, track: 1, kind: 1 }],
        pollMs: 60_000,
      }),
    });
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
    const u = unwritable(spool);
    await r.at(2n); // period 1 is due: its record cannot be written
    put(2n, 500);
    await r.at(3n); // periods 1 and 2 are due: still not
    u.restore();
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
      `spool ${join(spool, 'records')}: cannot write it (${u.code})`,
    );
    expect(r.logs.filter((l) => l.msg === 'spool writable again').length).toBe(1);
    const periods = r.logs.filter((l) => l.msg === 'period');
    expect(periods.map((l) => [l.class, l.bytes, l.unmetered])).toEqual([
      [CLASS.ModelBased, '3000', undefined],
      [0, '97293', `the spool could not be written when the period was due (${u.code})`],
      [0, '500', `the spool could not be written when the period was due (${u.code})`],
      [CLASS.ModelBased, '700', undefined],
    ]);
    expect(metricsText(r.agent)).toContain('\nwai_agent_spool_errors_total 2\n');
  });

  it('a counter: the periods due while unwritable are unmetered, the next one metered from readings kept', async () => {
    const { server, pc, spool, hop } = await counterHop();
    const r = hop();
    await r.agent.start();
    await readEach(r, pc, [
      [1n, 100n],
      [2n, 300n],
    ]);
    expect(await r.agent.delivered()).toBe(true);
    const u = unwritable(spool);
    await readEach(r, pc, [[3n, 600n]]);
    u.restore();
    await readEach(r, pc, [
      [4n, 1_000n],
      [5n, 1_500n],
    ]);
    expect(await r.agent.delivered()).toBe(true);
    expect(stated(server.records)).toEqual([
      [1n, 4, 200n],
      [2n, 0, 0n], // due when the spool could not be written
      [3n, 4, 400n], // its readings were kept: from 600 to 1000
      [4n, 4, 500n],
    ]);
  });
});

/** A traffic source the test scripts, period by period (k from B0); it notes what is committed. */
function scripted(of: (k: bigint) => Traffic | undefined | Error) {
  const commits: bigint[] = [];
  const source: TrafficSource = {
    describe: 'scripted',
    async start() {},
    async take(span) {
      const t = of((span.start - B0) / P);
      if (t instanceof Error) throw t;
      return t;
    },
    commit(span) {
      commits.push((span.start - B0) / P);
    },
    async close() {},
  };
  return { source, commits };
}

/** One track of `bytes` sent out, and `sessions`. */
const sent = (bytes: bigint, sessions = 1): Traffic => ({
  ...emptyTraffic(),
  sessions,
  tracks: [{ track: 1, kind: 1, direction: 2, bytes }],
});

describe('the traffic of a period', () => {
  it('a source that cannot be read: its periods unmetered, with no traffic; said once until it reads again', async () => {
    const room = makeRoom([['energy/ModelBased', 'live/hop']]);
    const server = await upServer(room);
    const { source, commits } = scripted((k) =>
      k === 1n || k === 2n ? new SourceError('lines were lost') : sent(1000n * (k + 1n)),
    );
    const r = rig(room, server, modelSource({ idleWatts: 1, nanojoulesPerByte: 0 }), {
      traffic: source,
    });
    await r.agent.start();
    for (const k of [1n, 2n, 3n, 4n]) await r.at(k);
    expect(await r.agent.delivered()).toBe(true);
    expect(server.records.map((x) => [x.class, trackBytes(x), x.sessions])).toEqual([
      [CLASS.ModelBased, 1000n, 1],
      [0, 0n, 0],
      [0, 0n, 0],
      [CLASS.ModelBased, 4000n, 1],
    ]);
    expect(r.logs.filter((l) => String(l.msg).startsWith('traffic source'))).toMatchObject([
      {
        level: 'error',
        msg: 'traffic source unreadable; its periods are signed unmetered',
        source: 'scripted',
        error: 'lines were lost',
      },
      { msg: 'traffic source readable again', source: 'scripted' },
    ]);
    const periods = r.logs.filter((l) => l.msg === 'period');
    expect(periods.map((l) => [l.unmetered, l.traffic_unknown])).toEqual([
      [undefined, undefined],
      ['traffic unknown: lines were lost', 'traffic unknown: lines were lost'],
      ['traffic unknown: lines were lost', 'traffic unknown: lines were lost'],
      [undefined, undefined],
    ]);
    // Each period given up once its record is in the spool, in order.
    expect(commits).toEqual([0n, 1n, 2n, 3n]);
    expect(metricsText(r.agent)).toContain('\nwai_agent_source_errors_total 2\n');
  });

  it('a source with no reading at both boundaries: unmetered, the reason in the line', async () => {
    const room = makeRoom([['energy/ModelBased', 'live/hop']]);
    const { source } = scripted(() => undefined);
    const r = rig(room, 'http://127.0.0.1:9', modelSource({ idleWatts: 1, nanojoulesPerByte: 0 }), {
      traffic: source,
      dryRun: true,
    });
    await r.agent.start();
    await r.at(1n);
    await r.agent.stop();
    const reason = 'traffic unknown: the traffic source has no reading at both boundaries';
    expect(r.logs.filter((l) => l.msg === 'period')).toMatchObject([
      { class: 0, bytes: '0', unmetered: reason, traffic_unknown: reason },
    ]);
    expect(r.logs.filter((l) => l.level === 'error')).toEqual([]);
  });

  it("an error that is not a source's is not signed away: it propagates, and the period is cut at the next boundary", async () => {
    const room = makeRoom([['energy/ModelBased', 'live/hop']]);
    const server = await upServer(room);
    let broken = true;
    const { source } = scripted(() => (broken ? new TypeError('a bug') : sent(10n)));
    const r = rig(room, server, modelSource({ idleWatts: 1, nanojoulesPerByte: 0 }), {
      traffic: source,
    });
    await r.agent.start();
    await expect(r.at(1n)).rejects.toThrow('a bug');
    broken = false;
    await r.at(2n);
    expect(await r.agent.delivered()).toBe(true);
    expect(stated(server.records)).toEqual([
      [0n, CLASS.ModelBased, 1_000_000n],
      [1n, CLASS.ModelBased, 1_000_000n],
    ]);
  });

  it('the counts of /metrics: periods by class, energy, bytes out, the last sessions and end', async () => {
    const room = makeRoom([['energy/ModelBased', 'live/hop']]);
    const { source } = scripted((k) => (k === 1n ? undefined : sent(2000n, Number(k) + 5)));
    const r = rig(
      room,
      'http://127.0.0.1:9',
      modelSource({ idleWatts: 2, nanojoulesPerByte: 1000 }),
      { traffic: source, dryRun: true },
    );
    await r.agent.start();
    for (const k of [1n, 2n, 3n]) await r.at(k);
    const c = r.agent.counts;
    expect([...c.periods.entries()].sort()).toEqual([
      [0, 1],
      [CLASS.ModelBased, 2],
    ]);
    // 2 W over 1 s and 1 µJ for each of 2000 bytes, twice.
    expect([c.joules, c.bytes, c.sessions, c.lastEnd]).toEqual([
      2n * (2_000_000n + 2000n),
      4000n,
      7,
      B0 + 3n * P,
    ]);
  });
});
