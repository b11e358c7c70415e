import { join } from 'node:path';
import { CLASS } from '@wai-steering/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ENERGY_PRESETS,
  HopAgent,
  noTraffic,
  prometheusEnergySource,
  SourceError,
} from '../../src/index.js';
import { type RunningNodeExporter, startNodeExporter } from '../helpers/node-exporter.js';
import { freePort, ManualClock, makeRoom, tempDir } from '../helpers/room.js';
import { TestSteeringServer } from '../helpers/steering.js';

let exporter: RunningNodeExporter;
beforeAll(async () => {
  exporter = await startNodeExporter();
});
afterAll(async () => {
  await exporter?.stop();
});

const P = 1_000_000n;
const B0 = 1_800_000_000_000_000n;

/** µJ as joules, written exactly in decimal (`1234.000567`). */
function joules(uj: bigint): string {
  return `${uj / 1_000_000n}.${String(uj % 1_000_000n).padStart(6, '0')}`;
}

/** The exposition of two RAPL packages, as node_exporter's RAPL collector names them. */
function rapl(p0: bigint, p1: bigint): string {
  return [
    '# HELP node_rapl_package_joules_total Current RAPL package value in joules',
    '# TYPE node_rapl_package_joules_total counter',
    `node_rapl_package_joules_total{index="0",path="/sys/class/powercap/intel-rapl:0"} ${joules(p0)}`,
    `node_rapl_package_joules_total{index="1",path="/sys/class/powercap/intel-rapl:1"} ${joules(p1)}`,
    '',
  ].join('\n');
}

describe('a Prometheus exposition (Debian node_exporter, textfile collector)', () => {
  it('states the counter’s increase exactly, in µJ, across 1e6 J and a reset', async () => {
    const room = makeRoom([['energy/OnChipCounter', 'live/hop']]);
    const server = new TestSteeringServer(room.ctx);
    await server.up(0);
    const clock = new ManualClock(B0 + P / 2n);
    const mono = new ManualClock(0n);
    const preset = ENERGY_PRESETS.node_rapl;
    const agent = new HopAgent({
      room: room.ctx,
      key: room.hops[0]!,
      period: P,
      energy: prometheusEnergySource({ url: exporter.url, ...preset }),
      traffic: noTraffic(),
      servers: [server.url],
      spool: join(tempDir(), 'spool'),
      clock: clock.now,
      monotonic: mono.now,
      cutDelay: 0n,
      manual: true,
      log: () => {},
    });
    // Package 0 passes 1 000 000 J (node_exporter then writes it as 1.000000123e+06); package 1
    // is reset (node_exporter restarted its count) in the fourth period.
    const values: [bigint, bigint][] = [
      [999_998_500_000n, 12_345_678n],
      [999_999_999_999n, 22_345_679n],
      [1_000_000_123_456n, 32_000_000n],
      [1_000_007_000_001n, 32_000_001n],
      [1_000_010_000_000n, 1_500_000n],
    ];
    exporter.write(rapl(...values[0]!));
    await agent.start();
    for (let k = 0; k < values.length; k++) {
      exporter.write(rapl(...values[k]!));
      clock.set(B0 + BigInt(k + 1) * P + 1000n);
      mono.set(BigInt(k + 1) * P + 1000n);
      await agent.poll();
    }
    expect(await agent.delivered()).toBe(true);
    await agent.stop();
    await server.down();
    // What node_exporter exposed, as written in the exposition.
    const text = await (await fetch(exporter.url)).text();
    expect(text).toMatch(/node_rapl_package_joules_total\{index="0",[^}]*\} 1\.00001e\+06/);
    const want = values.slice(1).map(([a, b], i) => {
      const [pa, pb] = values[i]!;
      return a - pa + (b >= pb ? b - pb : b);
    });
    expect(server.records.map((r) => r.class)).toEqual(want.map(() => CLASS.OnChipCounter));
    expect(server.records.map((r) => r.joules)).toEqual(want);
    expect(server.records.map((r) => (r.start - B0) / P)).toEqual([1n, 2n, 3n, 4n]);
  });

  it('names the series it cannot find, and refuses a value that is not a finite number', async () => {
    exporter.write('# TYPE hop_joules_total counter\nhop_joules_total{zone="a"} NaN\n');
    const missing = prometheusEnergySource({
      url: exporter.url,
      metric: 'hop_joules_total',
      labels: { zone: 'b' },
      unit: 'joules',
      class: CLASS.Estimator,
    });
    await expect(missing.read()).rejects.toThrow(/exposes no series hop_joules_total\{zone="b"\}/);
    const nan = prometheusEnergySource({
      url: exporter.url,
      metric: 'hop_joules_total',
      unit: 'joules',
      class: CLASS.Estimator,
    });
    await expect(nan.read()).rejects.toThrow(SourceError);
    await expect(nan.read()).rejects.toThrow(/"NaN" is not a finite number/);
    const port = await freePort();
    const down = prometheusEnergySource({
      url: `http://127.0.0.1:${port}/metrics`,
      metric: 'x',
      unit: 'joules',
      class: CLASS.Estimator,
    });
    await expect(down.read()).rejects.toThrow(
      new RegExp(`cannot scrape http://127.0.0.1:${port}/metrics: ECONNREFUSED`),
    );
  });
});
