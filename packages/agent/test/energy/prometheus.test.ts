import { join } from 'node:path';
import { CLASS } from '@wai-steering/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AgentConfigError,
  type CutRecord,
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
    // Half a period into B0's on both clocks.
    const mono = new ManualClock(P / 2n);
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

/** Kepler's node CPU counter as Kepler 0.10 and later expose it: a series per zone. */
function kepler(uj: bigint, path = '/sys/class/powercap/intel-rapl:0'): string {
  return [
    '# HELP kepler_node_cpu_joules_total Energy consumption of cpu at node level in joules',
    '# TYPE kepler_node_cpu_joules_total counter',
    `kepler_node_cpu_joules_total{node_name="edge-1",path="${path}",zone="package"} ${joules(uj)}`,
    `kepler_node_cpu_joules_total{node_name="edge-1",path="${path}:0",zone="core"} ${joules(uj / 2n)}`,
    '',
  ].join('\n');
}

/** Kepler up to 0.9: a counter per component, its `source` and the `mode` split. */
function kepler07(uj: bigint, source: string): string {
  return [
    '# TYPE kepler_node_package_joules_total counter',
    `kepler_node_package_joules_total{instance="edge-1",mode="dynamic",package="0",source="${source}"} ${joules(uj / 4n)}`,
    `kepler_node_package_joules_total{instance="edge-1",mode="idle",package="0",source="${source}"} ${joules(uj - uj / 4n)}`,
    '',
  ].join('\n');
}

describe('what a counter may claim, checked against what its exporter says', () => {
  it('refuses a counter that is not of energy, or a class its source cannot back', () => {
    const refused = (o: Parameters<typeof prometheusEnergySource>[0]) => {
      try {
        prometheusEnergySource(o);
      } catch (e) {
        expect(e).toBeInstanceOf(AgentConfigError);
        return (e as Error).message;
      }
      throw new Error('accepted');
    };
    const url = 'http://127.0.0.1:9/metrics';
    expect(
      refused({
        url,
        metric: 'node_cpu_seconds_total',
        unit: 'joules',
        class: CLASS.OnChipCounter,
      }),
    ).toMatch(/^node_cpu_seconds_total is not a counter of energy: its name says seconds/);
    expect(refused({ url, metric: 'edge_joules_total', class: CLASS.OnChipCounter })).toMatch(
      /^class OnChipCounter is more than edge_joules_total can back .*: state Estimator$/,
    );
    expect(
      refused({ url, metric: 'node_rapl_package_joules_total', class: CLASS.ModelBased }),
    ).toMatch(/^class ModelBased is more than node_rapl_package_joules_total can back/);
  });

  it("Kepler's node counter is OnChipCounter only while each scrape says it read RAPL", async () => {
    const room = makeRoom([['energy/OnChipCounter', 'live/hop']]);
    const server = new TestSteeringServer(room.ctx);
    await server.up(0);
    const clock = new ManualClock(B0 + P / 2n);
    const records: CutRecord[] = [];
    const agent = new HopAgent({
      room: room.ctx,
      key: room.hops[0]!,
      period: P,
      energy: prometheusEnergySource({
        url: exporter.url,
        ...ENERGY_PRESETS.kepler,
        class: CLASS.OnChipCounter,
      }),
      traffic: noTraffic(),
      servers: [server.url],
      spool: join(tempDir(), 'spool'),
      clock: clock.now,
      monotonic: clock.now,
      cutDelay: 0n,
      manual: true,
      log: () => {},
      onRecord: (r) => records.push(r),
    });
    exporter.write(kepler(1_000_000n));
    await agent.start();
    const steps: [bigint, string][] = [
      [3_000_000n, '/sys/class/powercap/intel-rapl:0'],
      [7_000_000n, '/sys/class/powercap/intel-rapl:0'],
      // Kepler's development meter (its paths name no RAPL zone): no longer backed.
      [9_000_000n, '/sys/class/powercap/intel-rapl/energy_package-0'],
      [12_000_000n, '/host/sys/class/powercap/intel-rapl:0'],
      [20_000_000n, '/host/sys/class/powercap/intel-rapl:0'],
    ];
    for (const [k, [uj, path]] of steps.entries()) {
      exporter.write(kepler(uj, path));
      clock.set(B0 + BigInt(k + 1) * P + 1000n);
      await agent.poll();
    }
    expect(await agent.delivered()).toBe(true);
    await agent.stop();
    await server.down();
    // The package zone alone (the preset's labels): the cores are inside the package.
    expect(server.records.map((r) => [(r.start - B0) / P, r.class, r.joules])).toEqual([
      [1n, CLASS.OnChipCounter, 4_000_000n],
      [2n, 0, 0n], // no reading backed at its end
      [3n, 0, 0n], // nor at its start
      [4n, CLASS.OnChipCounter, 8_000_000n],
    ]);
    expect(records[1]!.unmetered).toBe('no reading at the period end');
  });

  it("refuses at start a Kepler that does not say it read RAPL, and Kepler 0.9's mode split", async () => {
    const room = makeRoom([['energy/OnChipCounter', 'live/hop']]);
    const start = async (text: string, labels?: Record<string, string>) => {
      exporter.write(text);
      const agent = new HopAgent({
        room: room.ctx,
        key: room.hops[0]!,
        period: P,
        energy: prometheusEnergySource({
          url: exporter.url,
          metric: 'kepler_node_package_joules_total',
          ...(labels === undefined ? {} : { labels }),
          class: CLASS.OnChipCounter,
        }),
        traffic: noTraffic(),
        servers: ['http://127.0.0.1:9'],
        spool: join(tempDir(), 'spool'),
        manual: true,
        log: () => {},
      });
      try {
        await agent.start();
        return 'started';
      } catch (e) {
        expect(e).toBeInstanceOf(AgentConfigError);
        return (e as Error).message;
      } finally {
        await agent.stop();
      }
    };
    expect(await start(kepler07(8_000_000n, 'rapl-sysfs'))).toBe('started');
    expect(await start(kepler07(8_000_000n, 'trained_power_model'))).toMatch(
      /Kepler does not say it read this from RAPL \(its source label is "trained_power_model", not rapl-sysfs or rapl-msr\): class OnChipCounter is not backed \(state Estimator\)$/,
    );
    expect(await start(kepler07(8_000_000n, 'rapl-sysfs'), { mode: 'dynamic' })).toMatch(
      /its mode "dynamic" is Kepler's share of the reading, not the reading \(select both modes\)/,
    );
  });

  it('refuses at start a gauge in place of a counter', async () => {
    exporter.write('# TYPE edge_energy_joules gauge\nedge_energy_joules 12.5\n');
    const s = prometheusEnergySource({ url: exporter.url, metric: 'edge_energy_joules' });
    await expect(s.read()).rejects.toThrow(
      /edge_energy_joules is a gauge, not a counter: its increase over a period is not the energy spent/,
    );
  });
});
