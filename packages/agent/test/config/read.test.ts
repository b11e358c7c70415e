import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  AgentConfigError,
  HOP_CONFIG_ALIASES,
  loadHopConfig,
  parseHopConfig,
  readHopConfig,
  readHopConfigFile,
} from '../../src/index.js';
import { base, configError as errorOf } from '../helpers/config.js';
import { tempDir } from '../helpers/room.js';

describe('hop.yaml: one naming style (snake_case), the old camelCase read with a warning', () => {
  const capacity = { pathway: 'cdn-a', slots: 100, computing_ms: 8, network_ms: 14 };
  const snake = { ...base, capacity, delivery: { cut_delay: '200ms' } };

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

describe('reading hop.yaml', () => {
  it('every problem in one line: an unknown field first, then the others', () => {
    expect(errorOf({ ...base, servers: [], spool: 3, banana: 1 })).toBe(
      'hop config: banana: unknown field; servers: expected at least one steering server; spool: expected a file path',
    );
    expect(errorOf('a string')).toMatch(
      /^hop config: the file's top level must be a mapping of fields .*but it is a single value \("a string"\)$/,
    );
    expect(() => parseHopConfig({ ...base, servers: [] }, '/tmp', 'hop config a.yaml')).toThrow(
      /^hop config a\.yaml: servers: expected at least one steering server$/,
    );
  });

  it("keeps the file's directory, for the paths it names", () => {
    expect(parseHopConfig(base, '/etc/wai').baseDir).toBe('/etc/wai');
    const dir = tempDir();
    writeFileSync(join(dir, 'hop.json'), JSON.stringify(base));
    expect(loadHopConfig(join(dir, 'hop.json'))).toEqual(parseHopConfig(base, dir));
  });

  it('a file that cannot be read, or does not parse: one line naming it', () => {
    const dir = tempDir();
    const missing = join(dir, 'missing.yaml');
    expect(() => readHopConfigFile(missing)).toThrow(
      new AgentConfigError(`hop config ${missing}: cannot read it (ENOENT)`),
    );
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'room: [unclosed\n');
    let message = '';
    try {
      loadHopConfig(bad);
    } catch (e) {
      expect(e).toBeInstanceOf(AgentConfigError);
      message = (e as Error).message;
    }
    expect(message).toMatch(new RegExp(`^hop config ${bad}: does not parse: .+`));
    expect(message).not.toContain('\n');
    writeFileSync(join(dir, 'hop.yaml'), 'room: room.wrd\n');
    expect(() => loadHopConfig(join(dir, 'hop.yaml'))).toThrow(
      new RegExp(`^hop config ${join(dir, 'hop.yaml')}: key: missing; servers: missing; [^\n]+$`),
    );
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
