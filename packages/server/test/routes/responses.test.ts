import { describe, expect, it } from 'vitest';
import { declined, overloaded } from '../../src/routes/responses.js';

// The answers that ask a player to come back later (docs/players.md, the behaviour matrix; the
// players' suite checks that each player keeps steering after them).
describe('answers that ask a client to come back', () => {
  it('is a 503 whose Retry-After a cross-origin player can read, for a budget and for the store', () => {
    for (const [r, error, seconds] of [
      [declined('budget', 'over the request budget', 3), 'over_budget', '3'],
      [declined('store', 'the store file is gone', 60), 'store_unavailable', '60'],
      [overloaded('too many decisions await their commit'), 'overloaded', '1'],
    ] as const) {
      // Never 429: hls.js 1.7 stops steering for good after one.
      expect(r.status).toEqual(503);
      expect({
        retryAfter: r.headers['retry-after'],
        exposed: r.headers['access-control-expose-headers'],
        origin: r.headers['access-control-allow-origin'],
      }).toEqual({ retryAfter: seconds, exposed: 'Retry-After', origin: '*' });
      const body = JSON.parse(String(r.body)) as { error: string; message: string };
      expect(body.error).toEqual(error);
      expect(body.message).toMatch(new RegExp(`; retry in ${seconds} s$`));
    }
  });
});
