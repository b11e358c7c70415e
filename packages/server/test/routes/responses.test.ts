// Every response the server gives, as it looks on the wire: status, headers, body.
import { STEERING_MEDIA_TYPE } from '@wai-steering/manifest';
import { describe, expect, it } from 'vitest';
import {
  capacityRefused,
  capacityTaken,
  health,
  immutable,
  manifest,
  notAllowed,
  outsideHorizon,
  overBudget,
  overloaded,
  preflight,
  refused,
  stored,
  storeUnavailable,
  tooLarge,
  unauthorised,
} from '../../src/routes/responses.js';

const body = (r: { body: string | Uint8Array }) => JSON.parse(String(r.body));

describe('responses', () => {
  it('JSON answers are not cached and carry CORS', () => {
    const r = overloaded('busy');
    expect(r.headers).toMatchObject({
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      'access-control-allow-origin': '*',
    });
    expect([r.status, r.headers['retry-after'], body(r)]).toEqual([
      503,
      '1',
      { error: 'overloaded', message: 'busy; retry in 1 s' },
    ]);
  });

  it('says why a client must come back, and when, in a Retry-After a cross-origin player reads', () => {
    for (const [r, status, error, seconds] of [
      [overBudget({ why: 'too many', waitS: 7 }), 503, 'over_budget', '7'],
      [overBudget({ why: 'too many', waitS: 7 }, 429), 429, 'over_budget', '7'],
      [storeUnavailable({ cause: 'file', why: 'gone' }), 503, 'store_unavailable', '10'],
      [storeUnavailable({ cause: 'commit', why: 'failed' }, 429), 429, 'store_unavailable', '5'],
      [overloaded('busy', 429), 429, 'overloaded', '1'],
    ] as const) {
      expect({
        status: r.status,
        error: body(r).error,
        retryAfter: r.headers['retry-after'],
        exposed: r.headers['access-control-expose-headers'],
        said: body(r).message.endsWith(`; retry in ${seconds} s`),
      }).toEqual({ status, error, retryAfter: seconds, exposed: 'Retry-After', said: true });
    }
  });

  it('tells a hop what became of its record', () => {
    const digest = new Uint8Array(32).fill(1);
    expect([stored(digest, true).status, body(stored(digest, true))]).toEqual([
      201,
      { digest: '01'.repeat(32) },
    ]);
    expect(body(stored(digest, false, 'its hop is on no pathway'))).toEqual({
      digest: '01'.repeat(32),
      used: false,
      why: 'its hop is on no pathway',
    });
    expect(stored(digest, false).status).toBe(200);
    expect(body(refused('hop_revoked', { at: 'record' }))).toEqual({
      reason: 'hop_revoked',
      where: { at: 'record' },
      message: "the room's key log revokes this hop",
    });
    expect(body(refused('truncated', {}, 'the record ends early')).message).toBe(
      'the record ends early',
    );
    expect(body(refused('malformed', {})).message).toBe('the record is refused: malformed');
    expect(outsideHorizon('outside_horizon', 'x').status).toBe(422);
    expect(outsideHorizon('too_many_records', 'x').status).toBe(409);
    const big = tooLarge(10);
    expect([big.status, big.close, body(big).message]).toEqual([
      413,
      true,
      'a record is at most 10 bytes',
    ]);
  });

  it('answers capacity reports', () => {
    const report = { pathway: 0, hop: 'ab', gas: 3 };
    expect(body(capacityTaken(true, report, new Uint8Array(32)))).toEqual({
      taken: true,
      hop: 'ab',
      gas: 3,
      policy: '00'.repeat(32),
    });
    expect(capacityRefused('expired', 'too old').status).toBe(400);
  });

  it('serves the manifest, bytes by digest, health, 401, 405 and the preflight', () => {
    expect(manifest('{}').headers).toMatchObject({
      'content-type': STEERING_MEDIA_TYPE,
      'cache-control': 'no-store',
      'access-control-allow-origin': '*',
    });
    expect(immutable(new Uint8Array(1)).headers['cache-control']).toBe(
      'public, max-age=31536000, immutable',
    );
    expect(body(health(false, [{ cause: 'commit' }]))).toEqual({
      status: 'degraded',
      causes: [{ cause: 'commit' }],
    });
    const u = unauthorised('Bearer realm="x"', 'needs a token');
    expect([u.status, u.headers['www-authenticate'], body(u).error]).toEqual([
      401,
      'Bearer realm="x"',
      'unauthorised',
    ]);
    expect(notAllowed('GET').headers.allow).toBe('GET');
    const p = preflight();
    expect([p.status, p.headers['access-control-allow-headers']]).toEqual([
      204,
      'content-type, authorization, cmcd-request, cmcd-object, cmcd-session, cmcd-status',
    ]);
  });
});
