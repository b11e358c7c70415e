import { describe, expect, it } from 'vitest';
import { knownFields } from '../../src/config/schema.js';
import { hopConfigSchema, parseHopConfig, readHopConfig } from '../../src/index.js';
import { base, prom, configError as refusal } from '../helpers/config.js';

describe('hop.yaml', () => {
  it('names the field that breaks a rule', () => {
    expect(refusal({ ...base, servers: [] })).toMatch(
      /servers: expected at least one steering server/,
    );
    expect(refusal({ ...base, period: '1.5us' })).toMatch(
      /period: the period P: 1\.5us is not a whole number of microseconds/,
    );
    expect(refusal({ ...base, period: 'soon' })).toMatch(
      /period: the period P: expected a duration with its unit \(us, ms, s, m \(or min\), h, d or w\)/,
    );
    expect(refusal({ ...base, period: -1 })).toMatch(
      /period: the period P: expected a duration with its unit/,
    );
    // A bare number, YAML's or a string's: refused as in every file, with what to write.
    expect(refusal({ ...base, period: 2 })).toMatch(
      /period: the period P: a duration needs its unit: write "2s" \(or "2ms"\)/,
    );
    expect(refusal({ ...base, period: '2' })).toMatch(/period: the period P: .*write "2s"/);
    expect(refusal({ ...base, period: '18446744073709551616us' })).toMatch(
      /period: the period P: above 2\^64 − 1 µs/,
    );
    expect(refusal({ ...base, energy: { source: 'prometheus', url: 'http://h/metrics' } })).toMatch(
      /energy: give a preset, or a metric/,
    );
    expect(refusal({ ...base, energy: { source: 'rapl', zone: 'x' } })).toMatch(
      /energy\.zone: unknown field \(did you mean "zones"\?\)/,
    );
    expect(
      refusal({
        ...base,
        traffic: { source: 'nginx', log: 'a.log', routes: [{ match: 'x', track: -1 }] },
      }),
    ).toMatch(/traffic\.routes\.0\.track: expected an integer from 0 to 4294967295/);
    const { period: _, ...noPeriod } = base;
    expect(refusal(noPeriod)).toMatch(/period: give the policy/);
    expect(refusal({ ...base, spool: undefined })).toMatch(/spool: missing/);
    expect(refusal({ ...base, energy: { source: 'model', idle_watts: 1 } })).toMatch(
      /energy\.nanojoules_per_byte: missing/,
    );
  });

  it('reads durations with the one parser: the forms that read before, and the new ones', () => {
    const period = (v: unknown) => parseHopConfig({ ...base, period: v }, '/tmp').period;
    // Read before: whole numbers of us, ms, s, m, h (a bare number of seconds is now refused).
    expect(period('250us')).toBe(250n);
    expect(period('500ms')).toBe(500_000n);
    expect(period('2s')).toBe(2_000_000n);
    expect(period(' 2 s ')).toBe(2_000_000n);
    expect(period('1m')).toBe(60_000_000n);
    expect(period('1h')).toBe(3_600_000_000n);
    // Read now too: µs, min, d, w, and decimals whole in µs.
    expect(period('250µs')).toBe(250n);
    expect(period('5min')).toBe(300_000_000n);
    expect(period('1d')).toBe(86_400_000_000n);
    expect(period('1w')).toBe(604_800_000_000n);
    expect(period('1.5s')).toBe(1_500_000n);
    expect(period('0.25ms')).toBe(250n);
  });

  it('a counter must be of energy: its name says joules, or the config states the unit', () => {
    expect(refusal(prom({ metric: 'node_cpu_seconds_total', class: 'OnChipCounter' }))).toBe(
      'hop config: energy.metric: node_cpu_seconds_total is not a counter of energy: its name says seconds (an energy counter is in joules: its name ends in _joules_total, or it states no unit and the config gives unit: joules, millijoules or microjoules)',
    );
    // Stating a unit does not make seconds joules.
    expect(refusal(prom({ metric: 'node_cpu_seconds_total', unit: 'joules' }))).toMatch(
      /energy\.metric: node_cpu_seconds_total is not a counter of energy: its name says seconds/,
    );
    expect(refusal(prom({ metric: 'pdu_energy_kwh_total', unit: 'joules' }))).toMatch(
      /energy\.metric: pdu_energy_kwh_total is in kwh, as its name says, which the agent does not read/,
    );
    expect(refusal(prom({ metric: 'hop_energy_total' }))).toMatch(
      /energy\.metric: hop_energy_total states no unit in its name: give its unit \(unit: joules, millijoules or microjoules\)/,
    );
    expect(refusal(prom({ metric: 'pdu_energy_joules_total', unit: 'microjoules' }))).toMatch(
      /energy\.metric: pdu_energy_joules_total is in joules, as its name says, not in microjoules/,
    );
    expect(
      parseHopConfig(prom({ metric: 'hop_energy_total', unit: 'millijoules' }), '/tmp').energy,
    ).toMatchObject({
      metric: 'hop_energy_total',
      unit: 'millijoules',
    });
  });

  it('a counter claims only the class its source backs; more is refused with the reason', () => {
    expect(refusal(prom({ preset: 'scaphandre', class: 'OnChipCounter' }))).toMatch(
      /^hop config: energy\.class: class OnChipCounter is more than scaph_host_energy_microjoules can back \(Scaphandre's exposition does not say whether its value is the host's RAPL counter or, in a virtual machine, a share the hypervisor computed: .*\): state Estimator$/,
    );
    expect(
      refusal(prom({ metric: 'pdu_outlet_energy_joules_total', class: 'CalibratedInstrument' })),
    ).toMatch(
      /energy\.class: class CalibratedInstrument is more than pdu_outlet_energy_joules_total can back \(the agent cannot tell how an exporter it does not know acquired its value: an estimate .*\): state Estimator$/,
    );
    expect(refusal(prom({ preset: 'node_rapl', class: 'ModelBased' }))).toMatch(
      /energy\.class: class ModelBased is more than node_rapl_package_joules_total can back .*: state OnChipCounter or Estimator$/,
    );
    expect(
      refusal(prom({ metric: 'kepler_container_cpu_joules_total', class: 'OnChipCounter' })),
    ).toMatch(
      /energy\.class: class OnChipCounter is more than kepler_container_cpu_joules_total can back \(Kepler's kepler_container_cpu_joules_total is Kepler's attribution of a reading, an estimate\)/,
    );
  });

  it('a model of more digits than it holds exactly is refused', () => {
    expect(
      refusal({
        ...base,
        energy: { source: 'model', idle_watts: '1.0000001', nanojoules_per_byte: 1 },
      }),
    ).toMatch(/energy\.idle_watts: 1\.0000001 has more than 6 decimals/);
    expect(
      refusal({
        ...base,
        energy: { source: 'model', idle_watts: 1, nanojoules_per_byte: '0.0005' },
      }),
    ).toMatch(/energy\.nanojoules_per_byte: 0\.0005 has more than 3 decimals/);
    expect(
      refusal({ ...base, energy: { source: 'model', idle_watts: '-1', nanojoules_per_byte: 1 } }),
    ).toMatch(/energy\.idle_watts: "-1" is negative/);
  });
});

describe("hop.yaml's fields under the agent's names", () => {
  const capacity = { pathway: 'cdn-a', slots: 100, computing_ms: 8, network_ms: 14 };
  const snake = { ...base, capacity, delivery: { cut_delay: '200ms' } };

  it("reads the snake_case names, under the agent's camelCase properties", () => {
    const { config, warnings } = readHopConfig(snake, '/etc/wai');
    expect(warnings).toEqual([]);
    expect(config.keyLog).toBe(snake.key_log);
    expect(config.energy).toEqual({
      source: 'model',
      idleWatts: base.energy.idle_watts,
      nanojoulesPerByte: base.energy.nanojoules_per_byte,
    });
    expect(config.capacity).toMatchObject({
      pathway: capacity.pathway,
      slots: capacity.slots,
      computingMs: capacity.computing_ms,
      networkMs: capacity.network_ms,
    });
    expect(config.delivery.cutDelay).toBe(200_000n);
    const { key_log: _, ...noKeyLog } = base;
    expect(parseHopConfig(noKeyLog, '/tmp').keyLog).toBeNull();
  });

  it('the defaults: no traffic, delivery as docs/metering.md says', () => {
    const parsed = hopConfigSchema.parse(base);
    expect(parsed.traffic).toEqual({ source: 'none' });
    expect(parsed.delivery).toEqual({
      cutDelay: undefined,
      backoff: { initial: 250_000n, max: 30_000_000n },
      backfill: 10_000,
      keep: 10_000,
    });
    expect([parsed.capacity, parsed.listen, parsed.policy]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    const routes = hopConfigSchema.parse({
      ...base,
      traffic: { source: 'nginx', log: 'a.log', routes: [{ match: 'x', track: 1 }] },
    }).traffic;
    expect(routes).toEqual({
      source: 'nginx',
      log: 'a.log',
      routes: [{ match: 'x', track: 1, kind: 'media' }],
    });
  });
});

describe('the fields a mapping knows', () => {
  it("for energy: and traffic:, its source's; elsewhere, the mapping's", () => {
    const at = (path: string[], input: unknown) => [...knownFields(path, input)].sort();
    expect(at(['energy'], { energy: { source: 'model' } })).toEqual([
      'idle_watts',
      'nanojoules_per_byte',
      'source',
    ]);
    expect(at(['energy'], { energy: { source: 'rapl' } })).toEqual(['root', 'source', 'zones']);
    expect(at(['energy'], { energy: { source: 'solar' } })).toEqual([]);
    expect(at(['traffic'], {})).toEqual([]);
    expect(at(['traffic'], { traffic: { source: 'nginx' } })).toEqual(['log', 'routes', 'source']);
    expect(at(['traffic', 'routes'], {})).toEqual(['kind', 'match', 'segment', 'tier', 'track']);
    expect(at(['delivery', 'backoff'], {})).toEqual(['initial', 'max']);
    expect(at([], {})).toContain('key_log');
    expect(at(['nowhere'], {})).toEqual([]);
  });
});
