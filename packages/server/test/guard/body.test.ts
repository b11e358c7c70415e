// Reading a request body up to a limit, for every route that takes one.
import { describe, expect, it } from 'vitest';
import { readBody } from '../../src/guard/body.js';
import type { AppRequest } from '../../src/routes/types.js';

function request(body: AppRequest['body'], headers: AppRequest['headers'] = {}): AppRequest {
  return { method: 'POST', target: '/records', headers, ...(body === undefined ? {} : { body }) };
}

describe('readBody', () => {
  it('gives the bytes read within the limit', async () => {
    const bytes = new Uint8Array([1, 2, 3]);
    let asked = -1;
    const read = await readBody(
      request(async (limit) => {
        asked = limit;
        return bytes;
      }),
      10,
    );
    expect(read).toEqual(bytes);
    expect(asked).toBe(10);
  });

  it('refuses a declared length past the limit before reading a byte', async () => {
    let read = false;
    const body = async () => {
      read = true;
      return new Uint8Array(0);
    };
    expect(await readBody(request(body, { 'content-length': '11' }), 10)).toBe('too_large');
    expect(read).toBe(false);
    // A length that is not a number is left to the reader.
    expect(await readBody(request(body, { 'content-length': 'x' }), 10)).toEqual(new Uint8Array(0));
  });

  it('passes on a body cut off past the limit, and tells one that ended early', async () => {
    expect(
      await readBody(
        request(async () => 'too_large'),
        10,
      ),
    ).toBe('too_large');
    expect(
      await readBody(
        request(async () => {
          throw new Error('aborted');
        }),
        10,
      ),
    ).toBe('incomplete');
  });

  it('reads no body as empty', async () => {
    expect(await readBody(request(undefined), 10)).toEqual(new Uint8Array(0));
  });
});
