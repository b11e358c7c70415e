// Finding 3: no idle or send timeout and no connection cap: a client pipelining thousands of
// requests without reading kept its socket and its queued answers for good, and 100 such
// connections starved every other client. Finding 9: a stalled request was answered 400 after
// ~40 s. Now connections are bounded (http.ts) and a stalled request is answered 408.

import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerConfig } from '../src/config/read.js';
import { type RunningServer, startServer } from '../src/server.js';
import { demoRoom, freePort } from './helpers/setup.js';

const NO_BUDGET: ServerConfig['budget'] = {
  trustedProxies: [],
  requests: { rate: 0, burst: 1 },
  sessions: { rate: 0, burst: 1 },
  maxClients: 10,
};

async function serverWith(connections: Partial<ServerConfig['connections']>) {
  const room = demoRoom(await freePort());
  const config = room.config;
  const server = await startServer({
    ...config,
    store: { ...config.store, path: ':memory:' },
    budget: NO_BUDGET,
    connections: { ...config.connections, ...connections },
  });
  return {
    server,
    close: async () => {
      await server.close();
      room.remove();
    },
  };
}

function open(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const s = connect(Number(port), hostname, () => resolve(s));
    s.once('error', reject);
  });
}

const closed = (s: Socket) =>
  new Promise<void>((resolve) => {
    if (s.destroyed) resolve();
    else s.once('close', () => resolve());
  });

/** A GET on a keep-alive agent: its status. */
function getStatus(agent: Agent, url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('a client that pipelines and never reads', () => {
  let s: Awaited<ReturnType<typeof serverWith>>;
  beforeAll(async () => {
    s = await serverWith({ idleTimeout: 2000, keepAliveTimeout: 2000, maxUnreadBytes: 16_384 });
  });
  afterAll(() => s.close());

  // 'pipelined': 20 connections each sending 2 000 requests at once, more than 4 × maxPipelined
  // not answered yet. 'trickle': 4 connections each sending 10 requests at a time, 300 times
  // (5 MB of answers, more than the kernel's buffers hold on loopback): once the kernel holds no
  // more, answers wait (maxUnreadBytes), requests pile up (4 × maxPipelined) or nothing moves
  // (idleTimeout, 2 s here); should the kernel hold them all, the connection is idle with its
  // answers unread there (keepAliveTimeout, 2 s here): whichever comes first.
  it.each([
    [20, 1, 2000, 'pipelined'],
    [4, 300, 10, 'trickle'],
  ])(
    'is dropped (%i connections, %i × %i requests: %s), while a normal client beside it gets every answer',
    async (connections, batches, n, why) => {
      const server: RunningServer = s.server;
      const res = await fetch(`${server.url}/steer`);
      const manifest = (await res.json()) as Record<string, string>;
      const uri = manifest['science.transaction.wai-decision']!;
      const path = new URL(uri).pathname;
      const counter = server.engine.metrics.connectionsRefused;
      const dropped = () =>
        why === 'pipelined'
          ? counter.get({ why })
          : counter.get({ why: 'unread' }) +
            counter.get({ why: 'pipelined' }) +
            counter.get({ why: 'timeout' });
      const before = dropped();
      // 20 connections, each pipelining GETs of a decision (1 494 bytes each), never reading.
      const bad: Socket[] = [];
      const line = `GET ${path} HTTP/1.1\r\nhost: x\r\n\r\n`;
      for (let i = 0; i < connections; i++) {
        const sock = await open(server.url);
        sock.pause();
        sock.on('error', () => {});
        bad.push(sock);
      }
      const writing = (async () => {
        for (let b = 0; b < batches; b++) {
          for (const sock of bad) if (!sock.destroyed) sock.write(line.repeat(n));
          await new Promise((r) => setTimeout(r, 5));
        }
      })();
      // The normal client: 200 requests, one after another, on one keep-alive connection.
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const statuses: number[] = [];
      for (let i = 0; i < 200; i++) {
        statuses.push(await getStatus(agent, `${server.url}${i % 2 === 0 ? '/steer' : path}`));
      }
      agent.destroy();
      await writing;
      expect(statuses).toEqual(statuses.map(() => 200));
      // Every never-reading connection is dropped by the server, by the bound it passed.
      // Bounded wait (90 s): the trickle's answers may take a while under a loaded machine.
      for (let i = 0; i < 1800 && dropped() - before < connections; i++) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(dropped() - before).toBe(connections);
      for (const sock of bad) sock.destroy();
    },
  );
});

/** The answers in `text` (HTTP/1.1, each with its content-length): status, headers, body. */
function answersIn(text: string): { status: number; headers: Map<string, string>; body: string }[] {
  const out: { status: number; headers: Map<string, string>; body: string }[] = [];
  let at = 0;
  while (at < text.length) {
    const end = text.indexOf('\r\n\r\n', at);
    if (end < 0) break;
    const [line, ...fields] = text.slice(at, end).split('\r\n');
    const headers = new Map(
      fields.map((f) => [
        f.slice(0, f.indexOf(':')).toLowerCase(),
        f.slice(f.indexOf(':') + 1).trim(),
      ]),
    );
    const length = Number(headers.get('content-length') ?? 0);
    out.push({
      status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(line!)?.[1]),
      headers,
      body: text.slice(end + 4, end + 4 + length),
    });
    at = end + 4 + length;
  }
  return out;
}

describe('a client that pipelines past the bound, and reads', () => {
  let s: Awaited<ReturnType<typeof serverWith>>;
  beforeAll(async () => {
    s = await serverWith({});
  });
  afterAll(() => s.close());

  it('gets the answers of those in flight, then 503 with Retry-After for the rest up to the one past the bound, then the connection closes', async () => {
    const server: RunningServer = s.server;
    // The default bound: 4 × maxPipelined (16).
    const limit = 64;
    const counter = server.engine.metrics.connectionsRefused;
    const before = counter.get({ why: 'pipelined' });
    const sock = await open(server.url);
    const got: Buffer[] = [];
    sock.on('data', (b: Buffer) => got.push(b));
    sock.on('error', () => {});
    let fin = false;
    sock.once('end', () => {
      fin = true;
    });
    const ended = closed(sock);
    // 100 requests in one write (one segment on loopback: parsed at once, before any answer).
    sock.write('GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n'.repeat(100));
    await ended;
    sock.destroy();
    const answers = answersIn(Buffer.concat(got).toString('latin1'));
    // An answer for every request up to the one past the bound, none after it.
    expect(answers).toHaveLength(limit + 1);
    // Those started before it are answered; the others, not started, are 503 with Retry-After.
    const started = answers.findIndex((a) => a.status !== 200);
    expect(started).toBeGreaterThanOrEqual(1);
    expect(started).toBeLessThanOrEqual(16);
    for (const a of answers.slice(started)) {
      expect(a.status).toBe(503);
      expect(a.headers.get('retry-after')).toBe('1');
      expect(JSON.parse(a.body)).toMatchObject({ error: 'too_many_pipelined' });
    }
    // Closed by the server, after its last answer (a FIN, not a reset).
    expect(fin).toBe(true);
    expect(answers[limit]!.headers.get('connection')).toBe('close');
    expect(counter.get({ why: 'pipelined' }) - before).toBe(1);
    // The server goes on: a new connection is answered.
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it('answers every request of a pipeline within the bound, and keeps the connection', async () => {
    const server: RunningServer = s.server;
    const sock = await open(server.url);
    const got: Buffer[] = [];
    let answered = 0;
    const all = new Promise<void>((resolve) => {
      sock.on('data', (b: Buffer) => {
        got.push(b);
        answered = answersIn(Buffer.concat(got).toString('latin1')).length;
        if (answered === 64) resolve();
      });
    });
    sock.write('GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n'.repeat(64));
    await all;
    expect(sock.destroyed).toBe(false);
    expect(answersIn(Buffer.concat(got).toString('latin1')).every((a) => a.status === 200)).toBe(
      true,
    );
    sock.destroy();
  });
});

describe('a client that does not read, with a deep pipeline allowed', () => {
  let s: Awaited<ReturnType<typeof serverWith>>;
  beforeAll(async () => {
    s = await serverWith({ idleTimeout: 1000, keepAliveTimeout: 1000, maxPipelined: 1000 });
  });
  afterAll(() => s.close());

  it('is dropped by a timeout once its answers stop going out', async () => {
    const server = s.server;
    const counter = server.engine.metrics.connectionsRefused;
    const manifest = (await (await fetch(`${server.url}/steer`)).json()) as Record<string, string>;
    const path = new URL(manifest['science.transaction.wai-decision']!).pathname;
    const line = `GET ${path} HTTP/1.1\r\nhost: x\r\n\r\n`;
    const bad: Socket[] = [];
    for (let i = 0; i < 4; i++) {
      const sock = await open(server.url);
      sock.pause();
      sock.on('error', () => {});
      bad.push(sock);
    }
    // 4 000 requests each (6 MB of answers): whatever the kernel's buffers do not hold waits
    // unsent (idleTimeout: no byte moves), and what they hold sits unread on a connection
    // that is otherwise idle (keepAliveTimeout); either drops it.
    for (let b = 0; b < 400; b++) {
      for (const sock of bad) if (!sock.destroyed) sock.write(line.repeat(10));
      await new Promise((r) => setTimeout(r, 2));
    }
    for (let i = 0; i < 400 && counter.get({ why: 'timeout' }) < 4; i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(counter.get({ why: 'timeout' })).toBe(4);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    for (const sock of bad) sock.destroy();
  });
});

describe('connection limits', () => {
  let s: Awaited<ReturnType<typeof serverWith>>;
  beforeAll(async () => {
    s = await serverWith({ max: 4, headersTimeout: 500, requestTimeout: 1000 });
  });
  afterAll(() => s.close());

  it('answers a connection past the cap with 503 and closes it', async () => {
    const held: Socket[] = [];
    for (let i = 0; i < 4; i++) held.push(await open(s.server.url));
    const extra = await open(s.server.url);
    let answer = '';
    extra.on('data', (c) => {
      answer += c;
    });
    extra.write('GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n');
    await closed(extra);
    expect(answer).toMatch(/^HTTP\/1\.1 503 /);
    expect(answer).toContain('"error":"too_many_connections"');
    for (const h of held) h.destroy();
    await Promise.all(held.map(closed));
    // Room again once the server has seen them go (its side of each close comes a little later).
    let status = 0;
    for (let i = 0; i < 1200 && status !== 200; i++) {
      const res = await fetch(`${s.server.url}/healthz`);
      await res.arrayBuffer();
      status = res.status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 50));
    }
    expect(status).toBe(200);
  });

  it('answers a stalled request with 408', async () => {
    const sock = await open(s.server.url);
    let answer = '';
    sock.on('data', (c) => {
      answer += c;
    });
    sock.write('GET /healthz HTTP/1.1\r\nhost: x\r\n'); // the headers never end
    await closed(sock);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toContain('"error":"request_timeout"');
  });
});
