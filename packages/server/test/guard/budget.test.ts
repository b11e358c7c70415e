// The per-client budgets (requests, new sessions), spent at the door: token buckets per client
// address, the address read through trusted proxies only.
import { describe, expect, it } from 'vitest';
import { SteeringApp } from '../../src/app.js';
import { ClientBudget, TokenBuckets } from '../../src/guard/budget.js';
import { demoApp, get, minted } from '../helpers/setup.js';

describe('ClientBudget', () => {
  it('reads X-Forwarded-For only from a trusted proxy', () => {
    const b = new ClientBudget({
      requests: { rate: 1, burst: 1 },
      sessions: { rate: 1, burst: 1 },
      trustedProxies: ['10.0.0.1', '10.0.0.2'],
      maxClients: 10,
    });
    expect(b.clientOf('192.0.2.7', '198.51.100.1')).toBe('192.0.2.7');
    expect(b.clientOf('::ffff:10.0.0.1', '203.0.113.9, 198.51.100.1')).toBe('198.51.100.1');
    expect(b.clientOf('10.0.0.1', '203.0.113.9, 198.51.100.1, 10.0.0.2')).toBe('198.51.100.1');
    expect(b.clientOf('10.0.0.1', undefined)).toBe('10.0.0.1');
  });

  it('refills at its rate, up to its burst, and tracks at most maxClients', () => {
    let now = 0;
    const buckets = new TokenBuckets({ rate: 2, burst: 3 }, 4);
    const take = (k: string) => buckets.take(k, now);
    expect([take('a'), take('a'), take('a')]).toEqual([0, 0, 0]);
    expect(take('a')).toBe(1);
    now += 500;
    expect(take('a')).toBe(0);
    expect(take('a')).toBeGreaterThan(0);
    for (const k of ['b', 'c', 'd', 'e', 'f']) take(k);
    expect(buckets.size).toBe(4);
  });
});

describe('ClientBudget.spend', () => {
  it('says which budget is spent and how long until it holds a token, and tells onRefused', () => {
    let now = 0;
    const refused: string[] = [];
    const b = new ClientBudget({
      requests: { rate: 1, burst: 2 },
      sessions: { rate: 0.5, burst: 1 },
      trustedProxies: [],
      maxClients: 10,
      now: () => now,
      onRefused: (budget) => refused.push(budget),
    });
    expect([b.spend('requests', 'a'), b.spend('requests', 'a')]).toEqual([undefined, undefined]);
    expect(b.spend('requests', 'a')).toEqual({
      kind: 'over_budget',
      budget: 'requests',
      why: 'this client sent too many requests',
      waitS: 1,
    });
    expect(b.spend('sessions', 'a')).toBeUndefined();
    expect(b.spend('sessions', 'a')).toEqual({
      kind: 'over_budget',
      budget: 'sessions',
      why: 'this client asked for too many new sessions',
      waitS: 2,
    });
    // Another client has its own buckets; an unknown client is not budgeted.
    expect(b.spend('requests', 'b')).toBeUndefined();
    expect(b.spend('requests', undefined)).toBeUndefined();
    now += 1000;
    expect(b.spend('requests', 'a')).toBeUndefined();
    expect(refused).toEqual(['requests', 'sessions']);
  });
});

describe('budgets at the door', () => {
  it('spends a request on each steering request and a session only on those that mint one', async () => {
    const ctx = await demoApp();
    try {
      const budget = new ClientBudget({
        requests: { rate: 0.0001, burst: 4 },
        sessions: { rate: 0.0001, burst: 1 },
        trustedProxies: [],
        maxClients: 10,
      });
      const app = new SteeringApp(ctx.engine, {
        maxRecordBytes: 4096,
        maxTargetBytes: 8192,
        budget,
      });
      const ask = (target: string) =>
        app.handle({ method: 'GET', target, headers: {}, peer: '192.0.2.1' });
      expect((await ask('/steer')).status).toBe(200);
      // A second new session is past the session budget; one the server minted is not.
      // Declined: 429 to a DASH client (or one that names no protocol), 503 to an HLS one.
      const second = await ask('/steer');
      expect(second.status).toBe(429);
      expect(JSON.parse(String(second.body)).error).toBe('over_budget');
      const held = await ask(`/steer?wai_session=${minted(ctx, 3)}`);
      expect(held.status).toBe(200);
      // Two requests spent, then the request budget: four in all.
      expect((await ask(`/steer?wai_session=${minted(ctx, 3)}`)).status).toBe(200);
      const over = await ask(`/steer?_HLS_throughput=1&wai_session=${minted(ctx, 3)}`);
      expect(over.status).toBe(503);
      expect(over.headers['retry-after']).toMatch(/^[1-9][0-9]*$/);
      // Without a peer address (a door that does not say), nothing is budgeted.
      expect((await get(app, '/steer')).status).toBe(200);
    } finally {
      await ctx.close();
    }
  });
});
