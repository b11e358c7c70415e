import { connect } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { demoApp, useDemoServer } from './helpers/setup.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 400);

const prefixes = [
  '/steer',
  '/steer/reload',
  '/decisions/',
  '/records',
  '/records/',
  '/policies/',
  '/rooms/',
  '/healthz',
  '/metrics',
  'http://h:1/steer',
  '',
  '*',
];
const queryPart = fc.oneof(
  fc.constantFrom(
    '_HLS_pathway=',
    '_HLS_throughput=',
    '_DASH_pathway=',
    '_DASH_throughput=',
    'CMCD=',
    'wai_session=',
    '%',
    '%zz',
    '"',
    ',',
    'cdn-a',
    'cdn-b-east',
    '99999999999999999999999',
    '=',
    '&',
    '#',
    '?',
  ),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
);
const target = fc.oneof(
  fc
    .tuple(fc.constantFrom(...prefixes), fc.array(queryPart, { maxLength: 12 }))
    .map(([p, parts]) => p + parts.join('')),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc
    .constantFrom('/decisions/', '/records/', '/policies/')
    .chain((p) =>
      fc
        .string({ unit: fc.constantFrom(...'0123456789abcdefABCDEFxyz/'), maxLength: 70 })
        .map((h) => p + h),
    ),
);
const method = fc.oneof(
  fc.constantFrom('GET', 'POST', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'PATCH', 'get'),
  fc.string({ maxLength: 8 }),
);
const headers = fc.dictionary(
  fc.constantFrom('cmcd-request', 'content-length', 'content-type', 'host', 'x-any'),
  fc.oneof(fc.string({ maxLength: 60 }), fc.string({ unit: 'binary', maxLength: 30 })),
);
const body = fc.option(fc.uint8Array({ maxLength: 5000 }), { nil: undefined });

describe('fuzzed handlers', () => {
  it('never answers a 5xx to any request, and never throws', async () => {
    const ctx = await demoApp({ maxQueue: 1_000_000 });
    try {
      await fc.assert(
        fc.asyncProperty(method, target, headers, body, async (m, t, h, b) => {
          const res = await ctx.app.handle({
            method: m,
            target: t,
            headers: h,
            ...(b === undefined
              ? {}
              : { body: async (limit: number) => (b.length > limit ? 'too_large' : b) }),
          });
          expect(res.status).toBeGreaterThanOrEqual(200);
          expect(res.status).toBeLessThan(500);
          expect(typeof res.headers['content-type'] === 'string' || res.status === 204).toBe(true);
        }),
        { numRuns: RUNS },
      );
    } finally {
      await ctx.close();
    }
  });

  it('never answers a 5xx to a mutated record, and refuses it with a reason code', async () => {
    const ctx = await demoApp();
    const P = ctx.setup.policy.period_us;
    const good = ctx.sim.record(ctx.setup.hops[1]!, ctx.clock.us - P, ctx.clock.us, 10);
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.tuple(fc.nat(good.length - 1), fc.integer({ min: 1, max: 255 })), {
            minLength: 1,
            maxLength: 4,
          }),
          fc.nat(good.length + 20),
          async (flips, cut) => {
            const b = new Uint8Array(good.length + 20);
            b.set(good);
            for (const [i, x] of flips) b[i]! ^= x;
            const sent = b.subarray(0, cut);
            const res = await ctx.app.handle({
              method: 'POST',
              target: '/records',
              headers: {},
              body: async () => sent,
            });
            expect([200, 201, 400]).toContain(res.status);
            if (res.status === 400) {
              expect(JSON.parse(String(res.body)).reason).toMatch(/^[a-z_]+$/);
            }
          },
        ),
        { numRuns: RUNS },
      );
    } finally {
      await ctx.close();
    }
  });
});

describe('fuzzed sockets', () => {
  const running = useDemoServer();

  function exchange(raw: Uint8Array): Promise<string> {
    const { port } = new URL(running.server.url);
    return new Promise((resolve) => {
      const chunks: Buffer[] = [];
      const s = connect(Number(port), '127.0.0.1', () => {
        s.end(raw);
      });
      s.setTimeout(3000, () => s.destroy());
      s.on('data', (c) => chunks.push(c));
      s.on('error', () => undefined);
      s.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    });
  }

  it('answers raw requests with no 5xx and stays up', async () => {
    const line = fc.oneof(
      fc.tuple(method, target).map(([m, t]) => `${m} ${t} HTTP/1.1\r\nHost: x\r\n\r\n`),
      fc.string({ unit: 'binary', maxLength: 300 }),
      fc
        .tuple(fc.uint8Array({ maxLength: 400 }), fc.nat(10_000))
        .map(
          ([b, n]) =>
            `POST /records HTTP/1.1\r\nHost: x\r\nContent-Length: ${n}\r\n\r\n${Buffer.from(b).toString('latin1')}`,
        ),
    );
    await fc.assert(
      fc.asyncProperty(line, async (l) => {
        const reply = await exchange(Buffer.from(l, 'latin1'));
        for (const m of reply.matchAll(/HTTP\/1\.1 (\d{3})/g)) {
          expect(Number(m[1])).toBeLessThan(500);
        }
      }),
      { numRuns: Math.min(RUNS, 150) },
    );
    const big = await exchange(
      Buffer.from(`GET /steer?${'a'.repeat(70_000)} HTTP/1.1\r\nHost: x\r\n\r\n`),
    );
    expect(big).toMatch(/^HTTP\/1\.1 431/);
    const long = await exchange(
      Buffer.from(`GET /steer?${'a'.repeat(9000)} HTTP/1.1\r\nHost: x\r\n\r\n`),
    );
    expect(long).toMatch(/^HTTP\/1\.1 414/);
    const health = await fetch(`${running.server.url}/healthz`);
    expect(health.status).toBe(200);
  });
});
