// Finding 4: any wai_session of 32 hex digits was taken as one the server minted, so one client's
// random sessions filled the loads decisions sign. Now a session is 8 random bytes and an 8-byte
// MAC; one that fails the check is treated as absent (a new one is minted), and new sessions are
// budgeted per client address.
import { createHmac, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readDecision, unwrap } from '@wai-steering/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionMac } from '../../src/guard/session-mac.js';
import type { RunningServer } from '../../src/server.js';
import { startServer } from '../../src/server.js';
import { demoRoom, freePort } from '../helpers/setup.js';

describe('SessionMac', () => {
  it('checks what it minted, and no other session', () => {
    const mac = new SessionMac(randomBytes(32));
    const s = mac.mint();
    expect(s).toHaveLength(16);
    expect(mac.check(s)).toBe(true);
    for (let i = 0; i < 16; i++) {
      const t = Uint8Array.from(s);
      t[i]! ^= 1;
      expect(mac.check(t)).toBe(false);
    }
    expect(new SessionMac(randomBytes(32)).check(s)).toBe(false);
    // Instances of one deployment share the secret.
    const secret = randomBytes(32);
    expect(new SessionMac(secret).check(new SessionMac(secret).mint())).toBe(true);
    let forged = 0;
    for (let i = 0; i < 2000; i++) if (mac.check(randomBytes(16))) forged++;
    expect(forged).toBe(0);
  });

  it("tags as node:crypto's HMAC-SHA-256 does (RFC 2104), for keys of any length", () => {
    for (const length of [16, 32, 63, 64, 65, 100, 200]) {
      const secret = randomBytes(length);
      const mac = new SessionMac(secret);
      for (let i = 0; i < 50; i++) {
        const nonce = randomBytes(8);
        const expected = createHmac('sha256', secret).update(nonce).digest().subarray(0, 8);
        expect(Buffer.from(mac.sessionOf(nonce).subarray(8))).toEqual(expected);
      }
    }
  });

  it('mints distinct sessions across refills of its random pool', () => {
    const mac = new SessionMac(randomBytes(32));
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const s = mac.mint();
      expect(mac.check(s)).toBe(true);
      seen.add(Buffer.from(s).toString('hex'));
    }
    expect(seen.size).toBe(2000);
  });
});

describe('forged sessions at the server', () => {
  let server: RunningServer;
  let remove: () => void;
  beforeAll(async () => {
    const room = demoRoom(await freePort());
    remove = room.remove;
    // New sessions: bursts of 20, refilled so slowly that the test sees one burst alone.
    server = await startServer({
      ...room.config,
      store: { ...room.config.store, path: ':memory:' },
      budget: { ...room.config.budget, sessions: { rate: 0.001, burst: 20 } },
    });
  });
  afterAll(async () => {
    await server.close();
    remove();
  });

  it('are not counted: each is treated as absent, and new sessions are budgeted per client', async () => {
    const steer = async (session?: string) => {
      const res = await fetch(
        // An HLS player: a client declined is answered 503 (docs/players.md).
        `${server.url}/steer/reload?_HLS_throughput=5000000${session === undefined ? '' : `&wai_session=${session}`}`,
      );
      return { status: res.status, retry: res.headers.get('retry-after'), body: await res.text() };
    };
    // An honest player: minted once, then kept.
    const first = await steer();
    expect(first.status).toBe(200);
    const honest = /wai_session=([0-9a-f]{32})/.exec(first.body)![1]!;
    for (let i = 0; i < 3; i++) {
      const again = await steer(honest);
      expect(again.status).toBe(200);
      expect(again.body).toContain(`wai_session=${honest}`);
    }

    // A prober from the same address: 200 random sessions of 32 hex digits.
    const forged: string[] = [];
    const statuses: number[] = [];
    for (let i = 0; i < 200; i++) {
      const s = randomBytes(16).toString('hex');
      forged.push(s);
      const r = await steer(s);
      statuses.push(r.status);
      if (r.status === 200) {
        // Answered with a session the server minted, not the forged one.
        const got = /wai_session=([0-9a-f]{32})/.exec(r.body)![1]!;
        expect(got).not.toBe(s);
        expect(server.engine.sessionMac.check(Buffer.from(got, 'hex'))).toBe(true);
        const uri = JSON.parse(r.body)['science.transaction.wai-decision'] as string;
        const d = unwrap(
          readDecision(
            new Uint8Array(
              await (await fetch(uri.replace(/^https?:\/\/[^/]+/, server.url))).arrayBuffer(),
            ),
          ),
        );
        expect(server.engine.sessionMac.check(d.session)).toBe(true);
      } else {
        expect(r.status).toBe(503);
        expect(Number(r.retry)).toBeGreaterThanOrEqual(1);
      }
    }
    expect(statuses).not.toContain(429);
    const now = Number(server.engine.now());
    for (const s of forged)
      expect(server.engine.sessions.current(Buffer.from(s, 'hex'), now)).toBe(-1);
    // Loads: the honest session and at most one burst of the new-session budget.
    const total = Array.from(server.engine.sessions.loads).reduce(
      (a: number, b: number) => a + b,
      0,
    );
    expect(total).toBeLessThanOrEqual(1 + 20);
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThanOrEqual(200 - 20);
    const metrics = server.engine.metrics.render();
    expect(metrics).toMatch(/wai_steering_sessions_forged_total 200/);
    expect(metrics).toMatch(/wai_steering_budget_refused_total\{budget="sessions"\} \d+/);
    // The honest player is still answered.
    expect((await steer(honest)).status).toBe(200);
  });
});

describe('sessions.secret', () => {
  it('is shared by the instances of a deployment, and refused when short', async () => {
    const room = demoRoom(await freePort());
    const secret = join(room.setup.dir, 'session.key');
    writeFileSync(secret, randomBytes(32));
    const config = {
      ...room.config,
      store: { ...room.config.store, path: ':memory:' },
      sessions: { ...room.config.sessions, secret },
    };
    const a = await startServer(config);
    const b = await startServer({ ...config, listen: { ...config.listen, port: 0 } });
    try {
      const first = await (await fetch(`${a.url}/steer/reload`)).text();
      const session = /wai_session=([0-9a-f]{32})/.exec(first)![1]!;
      const other = await (await fetch(`${b.url}/steer/reload?wai_session=${session}`)).text();
      expect(other).toContain(`wai_session=${session}`);
      expect(b.engine.metrics.forgedSessions.get()).toBe(0);
    } finally {
      await a.close();
      await b.close();
    }
    writeFileSync(secret, randomBytes(8));
    await expect(startServer(config)).rejects.toThrow(
      /^sessions\.secret: .* holds 8 bytes; a session secret is at least 16 random bytes/,
    );
    room.remove();
  });
});
