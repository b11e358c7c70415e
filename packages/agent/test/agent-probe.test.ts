// `HopAgent.probe()`: the checks of start without starting (what `wai-steer doctor` runs on a
// hop's config): every problem at once, and none on a good setup.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HopAgent, modelSource, nginxLogSource, noTraffic, raplSource } from '../src/index.js';
import { makeRoom, tempDir } from './helpers/room.js';

describe('HopAgent.probe', () => {
  it('names every problem: a key the log does not grant, an unreadable counter and log', async () => {
    const room = makeRoom([['live/hop']]);
    const root = tempDir('wai-powercap-');
    mkdirSync(join(root, 'intel-rapl:0'));
    const agent = new HopAgent({
      room: room.ctx,
      key: room.hops[0]!,
      period: 1_000_000n,
      energy: raplSource({ root }),
      traffic: nginxLogSource({ path: join(tempDir(), 'absent.log'), routes: [] }),
      servers: ['http://127.0.0.1:9'],
      spool: tempDir(),
    });
    const problems = await agent.probe();
    expect(problems).toHaveLength(3);
    expect(problems[0]).toMatch(/does not grant energy\/OnChipCounter for the configured class/);
    expect(problems[1]).toMatch(/^energy source .*: cannot read .*energy_uj: ENOENT/);
    expect(problems[2]).toMatch(/^traffic source .*: cannot read .*absent\.log: ENOENT/);
    expect(agent.sources.energy).toMatchObject({ kind: 'counter', class: 4 });
    await expect(agent.probe()).resolves.toHaveLength(3); // probing starts nothing
  });

  it('is empty on a good setup', async () => {
    const room = makeRoom([['live/hop', 'energy/ModelBased']]);
    const log = join(tempDir(), 'access.log');
    writeFileSync(log, '');
    const agent = new HopAgent({
      room: room.ctx,
      key: room.hops[0]!,
      period: 1_000_000n,
      energy: modelSource({ idleWatts: '10', nanojoulesPerByte: '1' }),
      traffic: nginxLogSource({ path: log, routes: [] }),
      servers: ['http://127.0.0.1:9'],
      spool: tempDir(),
    });
    expect(await agent.probe()).toEqual([]);
    const none = new HopAgent({
      room: room.ctx,
      key: room.hops[0]!,
      period: 1_000_000n,
      energy: modelSource({ idleWatts: '10', nanojoulesPerByte: '1' }),
      traffic: noTraffic(),
      servers: ['http://127.0.0.1:9'],
      spool: tempDir(),
    });
    expect(await none.probe()).toEqual([]);
    expect(none.sources).toEqual({
      energy: { kind: 'span', class: 2, describe: expect.any(String) },
      traffic: { describe: 'none' },
    });
  });
});
