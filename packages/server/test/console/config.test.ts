import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/errors.js';
import { parseConfig } from '../../src/config/read.js';

const minimal = {
  room: 'room.wrd',
  policy: 'policy.wsp',
  signing_key: 'keys/steering.jwk',
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

describe('the console configuration', () => {
  it('is on and unprotected by default', () => {
    expect(parseConfig(minimal, '/etc/wai').console).toEqual({ enabled: true, auth: null });
  });

  it('takes a bearer token or basic auth, or turns off', () => {
    const token = 'abcdefghijklmnopqrstuvwxyz';
    expect(parseConfig({ ...minimal, console: { auth: { bearer: token } } }).console).toEqual({
      enabled: true,
      auth: { bearer: token },
    });
    const basic = { user: 'ops', password: 'correct horse battery' };
    expect(parseConfig({ ...minimal, console: { auth: { basic } } }).console.auth).toEqual({
      basic,
    });
    expect(parseConfig({ ...minimal, console: { enabled: false } }).console.enabled).toBe(false);
  });

  it('names what is wrong, one line per field', () => {
    expect(
      errorOf(() => parseConfig({ ...minimal, console: { auth: { bearer: 'short' } } })),
    ).toMatch(/^console\.auth\.bearer: expected a token of 16 or more/);
    expect(
      errorOf(() =>
        parseConfig({
          ...minimal,
          console: { auth: { basic: { user: 'a:b', password: 'long enough pw' } } },
        }),
      ),
    ).toMatch(/^console\.auth\.basic\.user: expected 1 to 128 characters, no ":"/);
    expect(errorOf(() => parseConfig({ ...minimal, console: { auth: 'secret' } }))).toMatch(
      /^console\.auth: expected \{"bearer": TOKEN\} or/,
    );
    expect(errorOf(() => parseConfig({ ...minimal, console: { enabled: 'yes' } }))).toMatch(
      /^console\.enabled: expected true or false/,
    );
  });
});
