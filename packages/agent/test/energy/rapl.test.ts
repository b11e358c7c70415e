import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLASS } from '@wai-steering/wire';
import { afterEach, describe, expect, it } from 'vitest';
import { HopAgent, noTraffic, raplSource, raplZones, SourceError } from '../../src/index.js';
import { ManualClock, makeRoom, tempDir } from '../helpers/room.js';
import { TestSteeringServer } from '../helpers/steering.js';

/** A powercap tree as the kernel lays it out: zones, a subzone, their counters and ranges. */
function powercap(): { root: string; set: (zone: string, uj: bigint) => void } {
  const root = tempDir('wai-powercap-');
  const zone = (name: string, label: string, max: bigint) => {
    const dir = join(root, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'name'), `${label}\n`);
    writeFileSync(join(dir, 'max_energy_range_uj'), `${max}\n`);
    writeFileSync(join(dir, 'energy_uj'), '0\n');
    writeFileSync(join(dir, 'enabled'), '1\n');
  };
  zone('intel-rapl:0', 'package-0', 262_143_328_850n);
  zone('intel-rapl:0:0', 'core', 262_143_328_850n);
  zone('intel-rapl:1', 'package-1', 65_712_999_613n);
  mkdirSync(join(root, 'intel-rapl'), { recursive: true }); // the control type directory
  return {
    root,
    set: (z, uj) => writeFileSync(join(root, z, 'energy_uj'), `${uj}\n`),
  };
}

const P = 1_000_000n;
const B0 = 1_800_000_000_000_000n; // a multiple of P

describe('RAPL through powercap', () => {
  it('reads the top-level zones, not their subzones', () => {
    const { root } = powercap();
    expect(raplZones(root)).toEqual(['intel-rapl:0', 'intel-rapl:1']);
  });

  it('gives the increase across a wraparound at max_energy_range_uj', async () => {
    const pc = powercap();
    const s = raplSource({ root: pc.root, zones: ['intel-rapl:1'] });
    pc.set('intel-rapl:1', 65_712_000_000n);
    const a = await s.read();
    pc.set('intel-rapl:1', 1_234n);
    const b = await s.read();
    expect(s.between(a, b)).toBe(65_712_999_613n - 65_712_000_000n + 1_234n);
  });

  it('names the file it cannot read', async () => {
    const pc = powercap();
    const s = raplSource({ root: pc.root, zones: ['intel-rapl:7'] });
    await expect(s.read()).rejects.toThrow(SourceError);
    await expect(s.read()).rejects.toThrow(/intel-rapl:7\/energy_uj: ENOENT/);
  });

  let stop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await stop?.();
    stop = undefined;
  });

  it('signs each period with the zones’ increase, exactly, in µJ, through a wraparound', async () => {
    const pc = powercap();
    const room = makeRoom([['live/hop', 'energy/OnChipCounter']]);
    const server = new TestSteeringServer(room.ctx);
    await server.up(0);
    const clock = new ManualClock(B0 + P / 2n);
    // Half a period into B0's on both clocks.
    const mono = new ManualClock(P / 2n);
    const agent = new HopAgent({
      room: room.ctx,
      key: room.hops[0]!,
      period: P,
      energy: raplSource({ root: pc.root }),
      traffic: noTraffic(),
      servers: [server.url],
      spool: join(tempDir(), 'spool'),
      clock: clock.now,
      monotonic: mono.now,
      cutDelay: 0n,
      manual: true,
      log: () => {},
    });
    stop = async () => {
      await agent.stop();
      await server.down();
    };
    const step = async (k: bigint, z0: bigint, z1: bigint, core: bigint) => {
      pc.set('intel-rapl:0', z0);
      pc.set('intel-rapl:1', z1);
      pc.set('intel-rapl:0:0', core);
      clock.set(B0 + k * P + 1000n);
      mono.set(k * P + 1000n);
      await agent.poll();
    };
    pc.set('intel-rapl:0', 1_000n);
    await agent.start();
    // Boundary 1: the first reading; the period it ends began before the agent did.
    await step(1n, 5_000_000n, 7_000n, 123n);
    await step(2n, 9_000_001n, 8_500n, 999_999n);
    // Zone 0 wraps.
    await step(3n, 262_143_000_000n, 9_000n, 0n);
    await step(4n, 17n, 9_001n, 5n);
    expect(await agent.delivered()).toBe(true);
    const got = server.records.map((r) => [r.start - B0, r.end - B0, r.class, r.joules]);
    expect(got).toEqual([
      [P, 2n * P, CLASS.OnChipCounter, 9_000_001n - 5_000_000n + (8_500n - 7_000n)],
      [2n * P, 3n * P, CLASS.OnChipCounter, 262_143_000_000n - 9_000_001n + 500n],
      [3n * P, 4n * P, CLASS.OnChipCounter, 262_143_328_850n - 262_143_000_000n + 17n + 1n],
    ]);
  });
});
