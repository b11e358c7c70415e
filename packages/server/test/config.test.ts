import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseConfig, parseDuration } from '../src/config.js';
import { readMaterials } from '../src/server.js';
import { demoRoom, tempDir } from './helpers/setup.js';

let cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup) c();
  cleanup = [];
});

const minimal = {
  room: 'room.wrd',
  policy: 'policy.wsp',
  signingKey: 'keys/steering.jwk',
  store: { path: 'steering.sqlite' },
};

function errorOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('configuration', () => {
  it('reads durations', () => {
    expect(parseDuration('7d')).toBe(604_800_000);
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('1.5s')).toBe(1500);
    expect(parseDuration(10)).toBe(10_000);
    expect(parseDuration('7 days')).toBeUndefined();
    expect(parseDuration(-1)).toBeUndefined();
  });

  it('fills the defaults and resolves paths against the file', () => {
    const c = parseConfig(minimal, '/etc/wai');
    expect(c.room).toBe('/etc/wai/room.wrd');
    expect(c.keyLog).toBeNull();
    expect(c.listen).toEqual({ host: '127.0.0.1', port: 8080 });
    expect(c.store).toEqual({ path: '/etc/wai/steering.sqlite', synchronous: 'normal' });
    expect(c.retention.records).toBe(7 * 86_400_000);
    expect(c.sessions.grace).toBe(10_000);
    expect(parseConfig({ ...minimal, store: { path: ':memory:' } }).store.path).toBe(':memory:');
  });

  it('names the field in every error', () => {
    expect(errorOf(() => parseConfig({ ...minimal, listen: { port: 70000 } }))).toBe(
      'listen.port: expected an integer from 0 to 65535',
    );
    expect(errorOf(() => parseConfig({ ...minimal, listen: { port: 'x' } }))).toBe(
      'listen.port: expected an integer from 0 to 65535',
    );
    expect(errorOf(() => parseConfig({ ...minimal, retention: { records: '7 days' } }))).toMatch(
      /^retention\.records: expected the retention of records/,
    );
    expect(
      errorOf(() => parseConfig({ ...minimal, store: { path: 'x', synchronous: 'off' } })),
    ).toBe('store.synchronous: expected "normal" or "full"');
    expect(errorOf(() => parseConfig({ ...minimal, room: undefined }))).toMatch(/^room: /);
    expect(errorOf(() => parseConfig({ ...minimal, colour: 'blue' }))).toBe(
      '(top level): unknown field "colour"',
    );
    const two = errorOf(() => parseConfig({ ...minimal, policy: 3, sessions: { grace: 'soon' } }));
    expect(two.split('\n')).toHaveLength(2);
  });

  it('reads JSON and YAML files, and names the file in its errors', () => {
    const { dir, remove } = tempDir();
    cleanup.push(remove);
    writeFileSync(join(dir, 'a.json'), JSON.stringify(minimal));
    expect(loadConfig(join(dir, 'a.json')).policy).toBe(join(dir, 'policy.wsp'));
    writeFileSync(
      join(dir, 'b.yaml'),
      'room: r.wrd\nkeyLog: k.wkl\npolicy: p.wsp\nsigningKey: s.jwk\nstore:\n  path: s.sqlite\n  synchronous: full\nretention:\n  records: 2d\n',
    );
    const y = loadConfig(join(dir, 'b.yaml'));
    expect(y.keyLog).toBe(join(dir, 'k.wkl'));
    expect(y.store.synchronous).toBe('full');
    expect(y.retention.records).toBe(2 * 86_400_000);
    writeFileSync(join(dir, 'c.json'), '{ nope');
    expect(errorOf(() => loadConfig(join(dir, 'c.json')))).toMatch(/c\.json: does not parse/);
    expect(errorOf(() => loadConfig(join(dir, 'missing.json')))).toMatch(
      /cannot read the file \(ENOENT\)/,
    );
  });

  it('checks the room, the policy and the key at start', () => {
    const { config, setup, remove } = demoRoom();
    cleanup.push(remove);
    expect(readMaterials(config).warnings).toEqual([]);
    expect(errorOf(() => readMaterials({ ...config, keyLog: null }))).toMatch(
      /^keyLog: .*key_log_missing/,
    );
    expect(errorOf(() => readMaterials({ ...config, policy: config.room }))).toMatch(/^policy: /);
    // A hop's key is not a steering key.
    const hopKey = join(setup.dir, 'keys', 'cdn-a-edge.jwk');
    expect(errorOf(() => readMaterials({ ...config, signingKey: hopKey }))).toMatch(
      /^signingKey: .*signer_not_authorised/,
    );
    writeFileSync(
      join(setup.dir, 'pub.jwk'),
      JSON.stringify({ kty: 'OKP', crv: 'Ed25519', x: 'AAAA' }),
    );
    expect(
      errorOf(() => readMaterials({ ...config, signingKey: join(setup.dir, 'pub.jwk') })),
    ).toMatch(/^signingKey: /);
  });
});

describe('the store of a configuration', () => {
  it('is SQLite by path or PostgreSQL by URL, one of them', () => {
    const pg = parseConfig({ ...minimal, store: { url: 'postgres://steer@127.0.0.1:5432/steer' } });
    expect(pg.store.url).toBe('postgres://steer@127.0.0.1:5432/steer');
    expect(pg.store.path).toBeUndefined();
    expect(pg.instances).toEqual({ heartbeat: 250, dropAfter: 1000 });
    expect(errorOf(() => parseConfig({ ...minimal, store: { url: 'mysql://x' } }))).toMatch(
      /^store\.url: expected a PostgreSQL URL/,
    );
    expect(
      errorOf(() =>
        parseConfig({ ...minimal, store: { path: 'a.sqlite', url: 'postgres://h/d' } }),
      ),
    ).toMatch(/^store: expected one of "path" \(SQLite\) and "url" \(PostgreSQL\)/);
    expect(errorOf(() => parseConfig({ ...minimal, store: {} }))).toMatch(/^store: expected one/);
  });
});
