import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLASS } from '@wai-steering/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { energySourceOf, trafficSourceOf } from '../../src/config/sources.js';
import { AgentConfigError, parseHopConfig } from '../../src/index.js';
import { base } from '../helpers/config.js';
import { type RunningNodeExporter, startNodeExporter } from '../helpers/node-exporter.js';
import { counterTree, logLine } from '../helpers/rig.js';
import { tempDir } from '../helpers/room.js';

/** `energy:` and `traffic:` as read, paths relative to `dir`. */
function configOf(dir: string, more: Record<string, unknown>) {
  const c = parseHopConfig({ ...base, ...more }, dir);
  const abs = (p: string) => (p.startsWith('/') ? p : join(dir, p));
  return {
    energy: () => energySourceOf(c.energy, abs),
    traffic: () => trafficSourceOf(c.traffic, abs),
  };
}

let exporter: RunningNodeExporter;
beforeAll(async () => {
  exporter = await startNodeExporter();
});
afterAll(async () => {
  await exporter?.stop();
});

describe('the energy source of energy:', () => {
  it('rapl: its root resolved from the file, every top-level zone; none is one line', () => {
    const dir = tempDir();
    const pc = counterTree();
    const e = configOf(dir, { energy: { source: 'rapl', root: pc.root } }).energy();
    expect([e.kind, e.class, e.describe]).toEqual([
      'counter',
      CLASS.OnChipCounter,
      `rapl ${join(pc.root, 'intel-rapl:0')}`,
    ]);
    mkdirSync(join(dir, 'powercap'));
    expect(() => configOf(dir, { energy: { source: 'rapl', root: 'powercap' } }).energy()).toThrow(
      new AgentConfigError(`energy: no RAPL zone under ${join(dir, 'powercap')}`),
    );
  });

  it("prometheus: a preset's metric, unit and labels; a metric of one's own reads all its series", async () => {
    exporter.write(
      [
        '# TYPE kepler_node_cpu_joules_total counter',
        'kepler_node_cpu_joules_total{path="/sys/class/powercap/intel-rapl:0",zone="package"} 12.5',
        'kepler_node_cpu_joules_total{path="/sys/class/powercap/intel-rapl:0:0",zone="core"} 4',
        '',
      ].join('\n'),
    );
    const prom = (e: Record<string, unknown>) =>
      configOf(tempDir(), { energy: { source: 'prometheus', url: exporter.url, ...e } }).energy();
    const preset = prom({ preset: 'kepler' });
    expect([preset.class, preset.describe]).toEqual([
      CLASS.Estimator,
      `prometheus ${exporter.url} kepler_node_cpu_joules_total`,
    ]);
    const read = async (e: ReturnType<typeof prom>) =>
      e.kind === 'counter' ? Object.values((await e.read()).values) : [];
    expect(await read(preset)).toEqual(['12500000']); // the package zone alone, in µJ
    const own = prom({ metric: 'kepler_node_cpu_joules_total' });
    expect((await read(own)).sort()).toEqual(['12500000', '4000000']);
    expect(prom({ preset: 'kepler', class: 'OnChipCounter' }).class).toBe(CLASS.OnChipCounter);
  });

  it('model and none', () => {
    const dir = tempDir();
    const model = configOf(dir, {}).energy();
    expect([model.kind, model.class, model.describe]).toEqual([
      'span',
      CLASS.ModelBased,
      'model 10 W idle + 1.5 nJ/B',
    ]);
    const none = configOf(dir, { energy: { source: 'none' } }).energy();
    expect([none.kind, none.class]).toEqual(['none', 0]);
  });
});

describe('the traffic source of traffic:', () => {
  it('nginx: the log resolved from the file, its routes compiled (a named group gives the tier)', async () => {
    const dir = tempDir();
    const T = 1_800_000_000_000_000n;
    writeFileSync(join(dir, 'access.log'), logLine(T + 10n, 1234, { uri: '/v/3/seg.m4s' }));
    const t = configOf(dir, {
      traffic: {
        source: 'nginx',
        log: 'access.log',
        routes: [{ match: '^/v/(?<tier>[0-7])/', track: 4, segment: '2s' }],
      },
    }).traffic();
    expect(t.describe).toBe(`nginx ${join(dir, 'access.log')}`);
    await t.start(T, 1_000_000n);
    try {
      const traffic = await t.take({ start: T, end: T + 1_000_000n });
      expect(traffic?.tracks).toEqual([{ track: 4, kind: 1, direction: 2, bytes: 1234n }]);
      expect(traffic?.subscriber_us[3]).toBe(2_000_000n);
    } finally {
      await t.close();
    }
  });

  it('nginx: a pattern that is not a regular expression, or two kinds for a track: one line', () => {
    const nginx = (routes: unknown[]) =>
      configOf(tempDir(), { traffic: { source: 'nginx', log: 'a.log', routes } }).traffic();
    expect(() => nginx([{ match: '^/v/(', track: 1 }])).toThrow(
      /^traffic\.routes\.0\.match: Invalid regular expression: /,
    );
    expect(() =>
      nginx([
        { match: '^/a/', track: 1 },
        { match: '^/b/', track: 1, kind: 'other' },
      ]),
    ).toThrow(new AgentConfigError('traffic: track 1 is given two kinds by its routes'));
  });

  it('prometheus and none', () => {
    const dir = tempDir();
    const prom = configOf(dir, {
      traffic: { source: 'prometheus', url: exporter.url, bytes: { metric: 'edge_bytes_total' } },
    }).traffic();
    expect(prom.describe).toBe(`prometheus ${exporter.url} edge_bytes_total`);
    expect(configOf(dir, {}).traffic().describe).toBe('none');
  });
});
