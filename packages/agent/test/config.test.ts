import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLASS } from '@wai-steering/wire';
import { describe, expect, it } from 'vitest';
import {
  AgentConfigError,
  createHopAgent,
  HOP_CONFIG_ALIASES,
  loadHopConfig,
  parseHopConfig,
  readHopConfig,
  readHopConfigFile,
} from '../src/index.js';
import { makeRoom, tempDir } from './helpers/room.js';

const base = {
  room: 'room.wrd',
  key_log: 'key-log.wkl',
  key: 'hop0.jwk',
  period: '2s',
  servers: ['http://127.0.0.1:8080'],
  spool: 'spool',
  energy: { source: 'model', idle_watts: 10, nanojoules_per_byte: '1.5' },
};

function refusal(input: unknown): string {
  try {
    parseHopConfig(input, '/tmp');
  } catch (e) {
    expect(e).toBeInstanceOf(AgentConfigError);
    return (e as Error).message;
  }
  throw new Error('accepted');
}

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
      /period: the period P: expected whole seconds/,
    );
    expect(refusal({ ...base, period: '18446744073709551616us' })).toMatch(
      /period: the period P: above 2\^64 − 1 µs/,
    );
    expect(refusal({ ...base, energy: { source: 'prometheus', url: 'http://h/metrics' } })).toMatch(
      /energy: give a preset, or a metric and its unit/,
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
    // Read before: whole numbers of us, ms, s, m, h, and a bare number of seconds.
    expect(period('250us')).toBe(250n);
    expect(period('500ms')).toBe(500_000n);
    expect(period('2s')).toBe(2_000_000n);
    expect(period(' 2 s ')).toBe(2_000_000n);
    expect(period('1m')).toBe(60_000_000n);
    expect(period('1h')).toBe(3_600_000_000n);
    expect(period(2)).toBe(2_000_000n);
    // Read now too: µs, min, d, w, and decimals whole in µs.
    expect(period('250µs')).toBe(250n);
    expect(period('5min')).toBe(300_000_000n);
    expect(period('1d')).toBe(86_400_000_000n);
    expect(period('1w')).toBe(604_800_000_000n);
    expect(period('1.5s')).toBe(1_500_000n);
    expect(period('0.25ms')).toBe(250n);
  });

  it('reads YAML, resolves paths from its directory, and builds the agent', () => {
    const dir = tempDir();
    const room = makeRoom([['energy/ModelBased', 'live/hop']]);
    room.write(dir);
    const file = join(dir, 'hop.yaml');
    writeFileSync(
      file,
      [
        'room: room.wrd',
        'key_log: key-log.wkl',
        'key: hop0.jwk',
        'period: 2s',
        'lag: 500ms',
        'servers: [http://127.0.0.1:8080]',
        'spool: spool',
        'energy: { source: model, idle_watts: 35.5, nanojoules_per_byte: 62 }',
        'traffic:',
        '  source: nginx',
        '  log: access.log',
        '  routes:',
        "    - { match: '^/v/(?<tier>[0-7])/', track: 1, segment: 2s }",
      ].join('\n'),
    );
    const c = loadHopConfig(file);
    expect(c.baseDir).toBe(dir);
    expect(c.period).toBe(2_000_000n);
    const agent = createHopAgent(c);
    expect([agent.P, agent.L, agent.class]).toEqual([2_000_000n, 500_000n, CLASS.ModelBased]);
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

describe('hop.yaml: every problem at once', () => {
  it('names every field that breaks a rule, unknown fields first, in the message and in issues', () => {
    let error: AgentConfigError | undefined;
    const { spool: _, ...noSpool } = base;
    try {
      parseHopConfig(
        { ...noSpool, servers: [], spol: 'x', period: 'soon' },
        '/tmp',
        'hop config h.yaml',
      );
    } catch (e) {
      error = e as AgentConfigError;
    }
    expect(error).toBeInstanceOf(AgentConfigError);
    expect(error!.issues).toHaveLength(4);
    expect(error!.issues[0]).toBe('spol: unknown field (did you mean "spool"?)');
    expect(error!.message).toBe(`hop config h.yaml: ${error!.issues.join('; ')}`);
    expect(error!.message).toMatch(/servers: expected at least one steering server/);
    expect(error!.message).toMatch(/period: the period P: expected a duration/);
    expect(error!.message).toMatch(/spool: missing/);
    expect(error!.message).not.toMatch(/more\)/);
  });

  it('says a top level that is a list, or a line that does not parse, in words', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'list.yaml'), '- room: room.wrd\n  key: hop.jwk\n');
    expect(() => readHopConfigFile(join(dir, 'list.yaml'))).toThrow(
      /list\.yaml: the file's top level must be a mapping of fields .*but it is a list/,
    );
    writeFileSync(join(dir, 'bad.yaml'), 'room: room.wrd\nkey: hop.jwk: x\n');
    expect(() => readHopConfigFile(join(dir, 'bad.yaml'))).toThrow(
      /bad\.yaml: does not parse: Nested mappings are not allowed in compact mappings at line 2, column 6: "key: hop\.jwk: x"$/,
    );
  });
});

describe('hop.yaml: one naming style (snake_case), the old camelCase read with a warning', () => {
  const capacity = { pathway: 'cdn-a', slots: 100, computing_ms: 8, network_ms: 14 };
  const snake = { ...base, capacity, delivery: { cut_delay: '200ms' } };

  function errorOf(input: unknown): string {
    try {
      readHopConfig(input, '/tmp');
    } catch (e) {
      expect(e).toBeInstanceOf(AgentConfigError);
      return (e as Error).message;
    }
    throw new Error('accepted');
  }

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

  // Each old spelling, in place of its new one: read the same, with one warning naming both.
  const cases = HOP_CONFIG_ALIASES.map(([at, old, now]) => ({ at, old, now }));
  it.each(cases)('reads $old as $now, with a warning', ({ at, old, now }) => {
    const camel: Record<string, unknown> = structuredClone(snake);
    const map = (at === '' ? camel : camel[at]) as Record<string, unknown>;
    map[old] = map[now];
    delete map[now];
    const read = readHopConfig(camel, '/etc/wai');
    const where = at === '' ? '' : `${at}.`;
    expect(read.warnings).toEqual([
      `${where}${old} is the old spelling of ${where}${now}: read this release, not the next (rename it)`,
    ]);
    expect(read.config).toEqual(readHopConfig(snake, '/etc/wai').config);
  });

  it.each(cases)('refuses $old given with $now, naming both', ({ at, old, now }) => {
    const both: Record<string, unknown> = structuredClone(snake);
    const map = (at === '' ? both : both[at]) as Record<string, unknown>;
    map[old] = map[now];
    const where = at === '' ? '' : `${at}.`;
    expect(errorOf(both)).toBe(
      `hop config: ${where}${old}: given with ${where}${now}, its new spelling: keep one`,
    );
  });

  it('reads every old spelling of one file, one warning each', () => {
    const { key_log, ...rest } = base;
    const camel = {
      ...rest,
      keyLog: key_log,
      energy: { source: 'model', idleWatts: 10, nanojoulesPerByte: '1.5' },
      capacity: { pathway: 'cdn-a', slots: 100, computingMs: 8, networkMs: 14 },
      delivery: { cutDelay: '200ms' },
    };
    const read = readHopConfig(camel, '/etc/wai');
    expect(read.warnings).toHaveLength(HOP_CONFIG_ALIASES.length);
    expect(read.config).toEqual(readHopConfig(snake, '/etc/wai').config);
  });

  it('refuses an unknown field, with the known field it is most likely meant to be', () => {
    expect(errorOf({ ...snake, keylog: 'k.wkl' })).toBe(
      'hop config: keylog: unknown field (did you mean "key_log"?)',
    );
    expect(errorOf({ ...snake, delivery: { cut_dely: '1s' } })).toBe(
      'hop config: delivery.cut_dely: unknown field (did you mean "cut_delay"?)',
    );
    expect(
      errorOf({ ...snake, energy: { source: 'model', idle_watt: 1, nanojoules_per_byte: 1 } }),
    ).toMatch(/^hop config: energy\.idle_watt: unknown field \(did you mean "idle_watts"\?\)/);
    expect(errorOf({ ...snake, capacity: { ...capacity, slot: 1 } })).toMatch(
      /^hop config: capacity\.slot: unknown field \(did you mean "slots"\?\)/,
    );
    expect(errorOf({ ...snake, banana: 1 })).toBe('hop config: banana: unknown field');
    // An old spelling of a field the source does not have stays unknown, with no warning.
    expect(errorOf({ ...snake, energy: { source: 'rapl', idleWatts: 1 } })).toBe(
      'hop config: energy.idleWatts: unknown field',
    );
    expect(
      errorOf({
        ...snake,
        traffic: { source: 'nginx', log: 'a.log', routes: [{ match: 'x', track: 1, teir: 0 }] },
      }),
    ).toBe('hop config: traffic.routes.0.teir: unknown field (did you mean "tier"?)');
  });

  it('a file with an old spelling: the warning, and the config as its new spelling reads', () => {
    const dir = tempDir();
    const lines = (keyLog: string) =>
      [
        'room: room.wrd',
        `${keyLog}: key-log.wkl`,
        'key: hop0.jwk',
        'period: 2s',
        'servers: [http://127.0.0.1:8080]',
        'spool: spool',
        'energy: { source: none }',
      ].join('\n');
    writeFileSync(join(dir, 'old.yaml'), lines('keyLog'));
    writeFileSync(join(dir, 'new.yaml'), lines('key_log'));
    const old = readHopConfigFile(join(dir, 'old.yaml'));
    expect(old.warnings).toEqual([
      'keyLog is the old spelling of key_log: read this release, not the next (rename it)',
    ]);
    expect(old.config).toEqual(loadHopConfig(join(dir, 'new.yaml')));
    expect(readHopConfigFile(join(dir, 'new.yaml')).warnings).toEqual([]);
  });
});
