// One check for every protected route (the admin route, the console's data): bearer tokens and
// basic credentials, the scheme in any case, one `Authorization` field only.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { authorised, challenge } from '../../src/guard/auth.js';

const TOKEN = 'a-token-of-24-characters';
const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;

describe('authorised', () => {
  it('takes the bearer token in any case of the scheme, with spaces around it', () => {
    const wanted = { bearer: TOKEN };
    for (const field of [`Bearer ${TOKEN}`, `bearer ${TOKEN}`, `BEARER  ${TOKEN} `]) {
      expect({ field, ok: authorised({ authorization: field }, wanted) }).toEqual({
        field,
        ok: true,
      });
    }
  });

  it('refuses another token, a prefix of it, another scheme, none, and two fields', () => {
    const wanted = { bearer: TOKEN };
    const refused = [
      `Bearer ${TOKEN}x`,
      `Bearer ${TOKEN.slice(0, -1)}`,
      `Bearer`,
      `Token ${TOKEN}`,
      basic('u', TOKEN),
      TOKEN,
    ];
    for (const field of refused) {
      expect({ field, ok: authorised({ authorization: field }, wanted) }).toEqual({
        field,
        ok: false,
      });
    }
    expect(authorised({}, wanted)).toBe(false);
    expect(authorised({ authorization: [`Bearer ${TOKEN}`, `Bearer ${TOKEN}`] }, wanted)).toBe(
      false,
    );
  });

  it('takes basic credentials, a password with colons included, and refuses either wrong', () => {
    const wanted = { basic: { user: 'operator', password: 'pass:word:12' } };
    expect(authorised({ authorization: basic('operator', 'pass:word:12') }, wanted)).toBe(true);
    expect(authorised({ authorization: basic('Operator', 'pass:word:12') }, wanted)).toBe(false);
    expect(authorised({ authorization: basic('operator', 'pass:word:1') }, wanted)).toBe(false);
    expect(authorised({ authorization: 'Basic !!!' }, wanted)).toBe(false);
    expect(authorised({ authorization: `Bearer ${TOKEN}` }, wanted)).toBe(false);
  });

  it('takes exactly the token asked for (property)', () => {
    const token = fc.stringMatching(/^[\x21-\x7e]{16,40}$/);
    fc.assert(
      fc.property(token, token, (a, b) => {
        expect(authorised({ authorization: `Bearer ${a}` }, { bearer: b })).toBe(a === b);
      }),
    );
  });
});

describe('challenge', () => {
  it('names the scheme asked for and the realm', () => {
    expect(challenge({ bearer: TOKEN }, 'admin')).toBe('Bearer realm="admin", charset="UTF-8"');
    expect(challenge({ basic: { user: 'u', password: 'p' } }, 'console')).toBe(
      'Basic realm="console", charset="UTF-8"',
    );
  });
});
