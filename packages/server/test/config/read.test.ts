import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatVerifierKey, noteKeyId } from '@wai-steering/tlog';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/errors.js';
import { loadConfig, parseConfig, readConfig } from '../../src/config/read.js';
import { tempDir } from '../helpers/setup.js';

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
  it('names every problem at once, unknown fields first with a did-you-mean', () => {
    const e = (() => {
      try {
        parseConfig({
          room: 'r.wrd',
          keylog: 'k.wkl',
          policy: 3,
          signing_key: 's.jwk',
          store: { path: 'x' },
          listen: { prot: 1 },
        });
      } catch (err) {
        return err as ConfigError;
      }
      throw new Error('expected a ConfigError');
    })();
    expect(e).toBeInstanceOf(ConfigError);
    expect(new Set(e.issues.slice(0, 2))).toEqual(
      new Set([
        'keylog: unknown field (did you mean "key_log"?)',
        'listen.prot: unknown field (did you mean "port"?)',
      ]),
    );
    expect(e.issues.slice(2)).toEqual(['policy: expected a file path (a string)']);
  });

  it('reads the camelCase spellings of the last release, with a warning each', () => {
    const old = {
      ...minimal,
      keyLog: 'k.wkl',
      publicUrl: 'https://steer.example.com',
      limits: { maxQueue: 5 },
    };
    const { config, warnings } = readConfig(old, '/etc/wai');
    expect(config.keyLog).toBe('/etc/wai/k.wkl');
    expect(config.signingKey).toBe('/etc/wai/keys/steering.jwk');
    expect(config.publicUrl).toBe('https://steer.example.com');
    expect(config.limits.maxQueue).toBe(5);
    expect(warnings).toEqual([
      'keyLog is the old spelling of key_log: read this release, not the next (rename it)',
      'signingKey is the old spelling of signing_key: read this release, not the next (rename it)',
      'publicUrl is the old spelling of public_url: read this release, not the next (rename it)',
      'limits.maxQueue is the old spelling of limits.max_queue: read this release, not the next (rename it)',
    ]);
    const snake = { room: 'r', policy: 'p', signing_key: 's', key_log: 'k', store: { path: 'x' } };
    expect(readConfig(snake, '/').warnings).toEqual([]);
    expect(errorOf(() => parseConfig({ ...snake, keyLog: 'k2' }))).toBe(
      'keyLog: given with key_log, its new spelling: keep one',
    );
    expect(errorOf(() => parseConfig({ ...snake, public_url: 'steer.example.com' }))).toBe(
      'public_url: expected an http or https URL',
    );
  });

  it('fills the defaults and resolves paths against the file', () => {
    const c = parseConfig(minimal, '/etc/wai');
    expect(c.room).toBe('/etc/wai/room.wrd');
    expect(c.keyLog).toBeNull();
    expect(c.listen).toEqual({ host: '127.0.0.1', port: 8080 });
    expect(c.store).toEqual({
      path: '/etc/wai/steering.sqlite',
      synchronous: 'normal',
      create: false,
      checkTimeout: 60_000,
    });
    expect(c.retention.records).toBe(7 * 86_400_000);
    expect(c.sessions.grace).toBe(10_000);
    expect(parseConfig({ ...minimal, store: { path: ':memory:' } }).store.path).toBe(':memory:');
  });

  it('reads store.commit_delay as a duration, absent when not given (server.ts picks the default)', () => {
    const pg = { ...minimal, store: { url: 'postgres://steer@db/steer' } };
    expect(parseConfig(pg).store.commitDelay).toBeUndefined();
    expect(
      parseConfig({ ...pg, store: { ...pg.store, commit_delay: '5ms' } }).store.commitDelay,
    ).toBe(5);
    expect(
      parseConfig({ ...minimal, store: { path: 'x', commit_delay: '0s' } }).store.commitDelay,
    ).toBe(0);
    expect(
      errorOf(() => parseConfig({ ...pg, store: { ...pg.store, commit_delay: 'soon' } })),
    ).toMatch(/^store\.commit_delay: how long a loaded group commit waits for more: /);
  });

  it('names the field in every error', () => {
    expect(errorOf(() => parseConfig({ ...minimal, listen: { port: 70000 } }))).toBe(
      'listen.port: expected an integer from 0 to 65535',
    );
    expect(errorOf(() => parseConfig({ ...minimal, listen: { port: 'x' } }))).toBe(
      'listen.port: expected an integer from 0 to 65535',
    );
    expect(errorOf(() => parseConfig({ ...minimal, retention: { records: '7 days' } }))).toMatch(
      /^retention\.records: the retention of records: expected a duration with its unit/,
    );
    // A bare number: refused as in every file and flag, with what to write.
    expect(errorOf(() => parseConfig({ ...minimal, retention: { records: 3600 } }))).toBe(
      'retention.records: the retention of records: a duration needs its unit: write "3600s" (or "3600ms")',
    );
    expect(
      errorOf(() => parseConfig({ ...minimal, store: { path: 'x', synchronous: 'off' } })),
    ).toBe('store.synchronous: expected "normal" or "full"');
    expect(errorOf(() => parseConfig({ ...minimal, room: undefined }))).toMatch(/^room: /);
    expect(errorOf(() => parseConfig({ ...minimal, colour: 'blue' }))).toBe(
      'colour: unknown field',
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
    // A name given twice is refused, in one line, where JSON.parse would keep the last.
    writeFileSync(
      join(dir, 'd.json'),
      JSON.stringify(minimal).replace(/^\{/, '{"policy":"x.wsp",'),
    );
    expect(errorOf(() => loadConfig(join(dir, 'd.json')))).toMatch(
      /d\.json: does not parse: the name "policy" is given twice in one object$/,
    );
    expect(errorOf(() => loadConfig(join(dir, 'missing.json')))).toMatch(
      /cannot read the file: no such file or directory \(ENOENT\)/,
    );
  });
});

describe('the store of a configuration', () => {
  it('is SQLite by path or PostgreSQL by URL, one of them', () => {
    const pg = parseConfig({ ...minimal, store: { url: 'postgres://steer@127.0.0.1:5432/steer' } });
    expect(pg.store.url).toBe('postgres://steer@127.0.0.1:5432/steer');
    expect(pg.store.path).toBeUndefined();
    expect(pg.instances).toEqual({
      heartbeat: 250,
      dropAfter: 1000,
      name: null,
      rotationLead: 'auto',
    });
    const named = parseConfig({
      ...minimal,
      store: { url: 'postgres://h/d' },
      instances: { name: 'steer-1', rotation_lead: '5s' },
    });
    expect(named.instances).toMatchObject({ name: 'steer-1', rotationLead: 5000 });
    expect(
      errorOf(() => parseConfig({ ...minimal, instances: { rotation_lead: 'soon' } })),
    ).toMatch(/^instances\.rotation_lead: /);
    expect(errorOf(() => parseConfig({ ...minimal, instances: { name: '' } }))).toMatch(
      /^instances\.name: expected this instance's name/,
    );
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

describe('the decision log of a configuration', () => {
  const vkeyOf = (type: number) => {
    const key = { name: 'witness.example', type, publicKey: new Uint8Array(32).fill(3) };
    const keyId = noteKeyId(key.name, key.type, key.publicKey);
    return formatVerifierKey({ ...key, keyId });
  };

  it('has every field defaulted: the public URL as origin, 1 s, 2 s, no witness', () => {
    expect(parseConfig(minimal, '/srv').log).toEqual({
      origin: null,
      interval: 1000,
      maxDelay: 2000,
      witnesses: [],
    });
    const witness = { url: 'https://w.example/w1', vkey: vkeyOf(4) };
    expect(
      parseConfig(
        {
          ...minimal,
          log: {
            origin: 'steer.example.com/log',
            interval: '250ms',
            max_delay: '1s',
            witnesses: [witness],
          },
        },
        '/srv',
      ).log,
    ).toEqual({
      origin: 'steer.example.com/log',
      interval: 250,
      maxDelay: 1000,
      witnesses: [witness],
    });
  });

  it('names what to fix in each field', () => {
    const log = (l: unknown) => errorOf(() => parseConfig({ ...minimal, log: l }, '/srv'));
    expect(log({ origin: 'a b/log' })).toBe(
      'log.origin: expected the log\'s name: no space and no "+", such as steer.example.com/log',
    );
    expect(log({ origin: 'a+b' })).toMatch(/^log\.origin: /);
    expect(log({ interval: '5ms' })).toBe(
      'log.interval: expected the interval between checkpoints: 10ms or more',
    );
    expect(log({ interval: '2s', max_delay: '2s' })).toBe(
      'log.max_delay: max_delay must be longer than interval (a decision may wait an interval for the integrator)',
    );
    expect(log({ witnesses: [{ url: 'w.example', vkey: vkeyOf(4) }] })).toBe(
      'log.witnesses.0.url: expected an http or https URL',
    );
    expect(log({ witnesses: [{ url: 'https://w.example', vkey: vkeyOf(1) }] })).toBe(
      "log.witnesses.0.vkey: a witness's vkey is of type 0x04 (tlog-cosignature, Ed25519), this one 0x01",
    );
    expect(log({ witnesses: [{ url: 'https://w.example', vkey: 'nope' }] })).toMatch(
      /^log\.witnesses\.0\.vkey: not a vkey \(/,
    );
    expect(log({ intervall: '1s' })).toBe(
      'log.intervall: unknown field (did you mean "interval"?)',
    );
  });
});
