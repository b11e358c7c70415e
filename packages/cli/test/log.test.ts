// The decision log's clients on a running server: `verify --url` says where a decision is in the
// log (and `--require-log` refuses one not in it yet), `log watch` holds each checkpoint to the
// last, and exits 1 when a server of the same origin and key shows another log (a fork) or a
// smaller one.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { loadConfig, type RunningServer, startServer } from '@wai-steering/server';
import { setupDemo } from '@wai-steering/server/testkit';
import {
  ed25519Signer,
  emptyLogState,
  encodeEntry,
  integrate,
  signCheckpoint,
} from '@wai-steering/tlog';
import { toHex } from '@wai-steering/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli.js';
import { cli, expectUserError, freePort, tempDir } from './helpers.js';
import { BIN } from './paths.js';

/** Runs the built `wai-steer` in a process of its own; its exit status and output. */
function binAsync(
  argv: readonly string[],
  cwd: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...argv],
      { cwd, maxBuffer: 1 << 24, timeout: 300_000 },
      (e, stdout, stderr) => {
        const code = e === null ? 0 : typeof e.code === 'number' ? e.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

const servers: { close(): unknown }[] = [];
afterAll(async () => {
  for (const s of servers.reverse()) await s.close();
});

/** Waits for `ok` (polled on each event-loop turn after an answer), at most `ms`. */
async function until(what: string, ok: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function startLogged(dir: string, log: { interval: number; maxDelay: number }) {
  const port = await freePort();
  const setup = setupDemo(dir, { port, periodMs: 500, budgets: false });
  const config = loadConfig(setup.configPath);
  const server = await startServer({ ...config, log: { ...config.log!, ...log } });
  servers.push(server);
  return { setup, server, roomId: toHex(setup.roomId) };
}

/** One decision: its digest (the end of its decision URI). */
async function decide(url: string): Promise<string> {
  const m = (await (await fetch(`${url}/steer`)).json()) as Record<string, string>;
  return /([0-9a-f]{64})"?$/.exec(JSON.stringify(m['RELOAD-URI'] ?? ''))?.[1] ?? '';
}

const logged = (url: string, digest: string) => async () =>
  (await fetch(`${url}/log/proof/${digest}`)).status === 200;

describe('verify --url and the log', () => {
  let dir: string;
  let fast: Awaited<ReturnType<typeof startLogged>>;
  let slow: Awaited<ReturnType<typeof startLogged>>;
  beforeAll(async () => {
    dir = tempDir();
    fast = await startLogged(join(dir, 'fast'), { interval: 100, maxDelay: 500 });
    // A log whose next checkpoint is a minute away: a decision made now is not in it yet.
    slow = await startLogged(join(dir, 'slow'), { interval: 60_000, maxDelay: 61_000 });
  });

  it('prints where the decision is in the log, verified', async () => {
    const url = fast.server.url;
    const r0 = await cli(['verify', '--url', `${url}/steer`, '--room-id', fast.roomId], dir);
    expect(r0.code, r0.stderr).toBe(0);
    const digest = /^ACCEPTED decision ([0-9a-f]{64})/m.exec(r0.stdout)?.[1];
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    await until('the decision logged', logged(url, digest!));
    const uri = `${url}/decisions/${digest}`;
    const r = await cli(['verify', '--url', uri, '--room-id', fast.roomId, '--require-log'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^log {6}in the decision log 127\.0\.0\.1:\d+\/log at index \d+ \(checkpoint of \d+ entries, signed by [0-9a-f]{64}; inclusion proof verified\)$/m,
    );
    // With --json, stdout is C8's outcome alone and the log's line goes to stderr.
    const j = await cli(['verify', '--url', uri, '--json', '--require-log'], dir);
    expect(j.code, j.stderr).toBe(0);
    expect(JSON.parse(j.stdout)).toMatchObject({ outcome: 'accept' });
    expect(j.stderr).toMatch(/^log {6}in the decision log .* at index \d+/);
  });

  it('says a decision no checkpoint holds yet is not in the log; --require-log makes it exit 1', async () => {
    const url = slow.server.url;
    const r = await cli(['verify', '--url', `${url}/steer`, '--room-id', slow.roomId], dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^log {6}not in the decision log yet: no checkpoint holds it \(the server says to ask again in 60 s\)$/m,
    );
    const strict = await cli(['verify', '--url', `${url}/steer`, '--require-log'], dir);
    expect(strict.code, strict.stderr).toBe(1);
    expect(strict.stdout).toMatch(/^log {6}not in the decision log yet/m);
    expectUserError(
      await cli(['verify', '--require-log', '--room', 'x'], dir),
      /--require-log goes with --url/,
    );
  });
});

/**
 * A server that serves the room of `real` and a log of its own: `entries`, in tiles, under the
 * checkpoint `origin` signed with `key`.
 */
async function fakeLog(
  real: RunningServer,
  roomId: string,
  origin: string,
  key: Uint8Array,
  entries: Uint8Array[],
  options: { tiles?: boolean } = {},
): Promise<string> {
  const ig = integrate(emptyLogState(), entries);
  const files = new Map<string, Uint8Array>();
  if (options.tiles !== false) {
    for (const t of [...ig.tiles, ...ig.bundles]) files.set(`/log/${t.path}`, t.data);
  }
  const checkpoint = signCheckpoint({ origin, size: ig.size, root: ig.root, extensions: [] }, [
    ed25519Signer(origin, key),
  ]);
  const room = new Uint8Array(
    await (await fetch(`${real.url}/rooms/${roomId}/descriptor`)).arrayBuffer(),
  );
  const keyLog = new Uint8Array(
    await (await fetch(`${real.url}/rooms/${roomId}/key-log`)).arrayBuffer(),
  );
  files.set(`/rooms/${roomId}/descriptor`, room);
  files.set(`/rooms/${roomId}/key-log`, keyLog);
  files.set('/log/checkpoint', new TextEncoder().encode(checkpoint));
  const server: Server = createServer((req, res) => {
    const body = files.get(req.url ?? '');
    res.writeHead(body === undefined ? 404 : 200).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push({ close: () => new Promise((r) => server.close(r)) });
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

describe('log watch', () => {
  it('holds each checkpoint to the last, and exits 1 on a fork or a smaller log', async () => {
    const dir = tempDir();
    const { setup, server, roomId } = await startLogged(join(dir, 'room'), {
      interval: 100,
      maxDelay: 500,
    });
    const url = server.url;
    const state = join(dir, 'watch.state');
    const watch = (u: string) =>
      cli(['log', 'watch', '--url', u, '--room-id', roomId, '--state', state, '--once'], dir);

    await until('a first checkpoint', async () => (await fetch(`${url}/log/checkpoint`)).ok);
    for (let i = 0; i < 5; i++) await decide(url);
    await until('five decisions logged', async () => {
      const text = await (await fetch(`${url}/log/checkpoint`)).text();
      return Number(text.split('\n')[1]) >= 5;
    });
    const first = await watch(url);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(
      /^log 127\.0\.0\.1:\d+\/log: size \d+, verified; held from now on$/m,
    );
    const held = readFileSync(state, 'utf8');
    const [origin, size] = held.split('\n') as [string, string];
    expect(Number(size)).toBeGreaterThanOrEqual(5);

    // The log grows: consistent with the checkpoint held, proved from the tiles.
    for (let i = 0; i < 300; i++) await decide(url);
    await until('the log grown past a full tile', async () => {
      const text = await (await fetch(`${url}/log/checkpoint`)).text();
      return Number(text.split('\n')[1]) >= 300;
    });
    const grown = await watch(url);
    expect(grown.code, grown.stderr).toBe(0);
    expect(grown.stdout).toMatch(new RegExp(`: size \\d+, consistent with the ${size} held$`, 'm'));
    const nowHeld = readFileSync(state, 'utf8');
    const n = Number(nowHeld.split('\n')[1]);
    expect(n).toBeGreaterThanOrEqual(300);

    // A second log of the same origin, signed by the same key: the same size, another root.
    const steer = new Uint8Array(
      Buffer.from(
        JSON.parse(readFileSync(join(setup.dir, 'keys', 'steering.jwk'), 'utf8')).d,
        'base64url',
      ),
    );
    const other = (k: number) =>
      Array.from({ length: k }, (_, i) =>
        encodeEntry({ t: BigInt(i + 1), digest: new Uint8Array(32).fill(i % 251) }),
      );
    const fork = await fakeLog(server, roomId, origin, steer, other(n));
    const forked = await watch(fork);
    expect(forked.code, forked.stderr).toBe(1);
    expect(forked.stdout).toContain(
      `log ${origin}: the log forked: two checkpoints of ${n} entries with different roots`,
    );
    expect(forked.stdout).toContain(`held (${state}):\n${nowHeld}\nserved:\n${origin}\n${n}\n`);
    expect(readFileSync(state, 'utf8')).toBe(nowHeld);

    // A larger log that does not extend the one held: no consistency proof.
    const larger = await watch(await fakeLog(server, roomId, origin, steer, other(n + 40)));
    expect(larger.code).toBe(1);
    expect(larger.stdout).toMatch(/the log forked: no consistency proof from the \d+ entries held/);

    // A smaller one.
    const smaller = await watch(await fakeLog(server, roomId, origin, steer, other(3)));
    expect(smaller.code).toBe(1);
    expect(smaller.stdout).toContain(
      `the log shrank: the checkpoint held is of ${n} entries, the one served of 3`,
    );

    // A log signed by a key the room does not know: an error, not a fork.
    const stranger = await fakeLog(
      server,
      roomId,
      origin,
      new Uint8Array(32).fill(7),
      other(n + 1),
    );
    expectUserError(
      await watch(stranger),
      /is not signed under its origin by a key that may sign the room's decisions/,
    );
    expect(readFileSync(state, 'utf8')).toBe(nowHeld);
  });
});

describe('log watch against a log that does not prove what it signed', () => {
  it('exits 1 with both checkpoints once --prove-within has passed, its tiles answering 404', async () => {
    const dir = tempDir();
    const { setup, server, roomId } = await startLogged(join(dir, 'room'), {
      interval: 100,
      maxDelay: 500,
    });
    await decide(server.url);
    await until('a checkpoint of one decision', async () => {
      const text = await (await fetch(`${server.url}/log/checkpoint`)).text();
      return Number(text.split('\n')[1]) >= 1;
    });
    const state = join(dir, 'watch.state');
    const first = await cli(
      ['log', 'watch', '--url', server.url, '--room-id', roomId, '--state', state, '--once'],
      dir,
    );
    expect(first.code, first.stderr).toBe(0);
    const held = readFileSync(state, 'utf8');
    const [origin, size] = held.split('\n') as [string, string];
    const steer = new Uint8Array(
      Buffer.from(
        JSON.parse(readFileSync(join(setup.dir, 'keys', 'steering.jwk'), 'utf8')).d,
        'base64url',
      ),
    );
    // A larger log, its checkpoint signed by the room's key, none of its tiles served.
    const n = Number(size) + 40;
    const silent = await fakeLog(
      server,
      roomId,
      origin,
      steer,
      Array.from({ length: n }, (_, i) =>
        encodeEntry({ t: BigInt(i + 1), digest: new Uint8Array(32).fill(i % 251) }),
      ),
      { tiles: false },
    );
    // In a process of its own, as it runs; asked every 100 ms, an alarm after 1 s.
    const r = await binAsync(
      [
        'log',
        'watch',
        '--url',
        silent,
        '--room-id',
        roomId,
        '--state',
        state,
        '--once',
        '--interval',
        '100ms',
        '--prove-within',
        '1s',
      ],
      dir,
    );
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toContain(
      `log ${origin}: the log did not prove the checkpoint of ${n} entries consistent with the ${size} held within 1 s (`,
    );
    expect(r.stdout).toContain(`held (${state}):\n${held}\nserved:\n${origin}\n${n}\n`);
    expect(r.stderr).toMatch(
      new RegExp(`not proved consistent with the ${size} held yet \\(.*not found.*\\); again in`),
    );
    expect(readFileSync(state, 'utf8')).toBe(held);
    // --prove-within 0s: the alarm at the first try.
    const at0 = await binAsync(
      [
        'log',
        'watch',
        '--url',
        silent,
        '--room-id',
        roomId,
        '--state',
        state,
        '--once',
        '--prove-within',
        '0s',
      ],
      dir,
    );
    expect(at0.code, at0.stderr).toBe(1);
    expect(at0.stdout).toContain('consistent with the');
    expectUserError(
      await cli(
        [
          'log',
          'watch',
          '--url',
          silent,
          '--room-id',
          roomId,
          '--state',
          state,
          '--prove-within',
          'soon',
        ],
        dir,
      ),
      /--prove-within soon: /,
    );
  });

  it('reads at most 1 MiB of a checkpoint: a log serving 200 MB is refused in one line', async () => {
    const dir = tempDir();
    const { server, roomId } = await startLogged(join(dir, 'room'), {
      interval: 100,
      maxDelay: 500,
    });
    let sent = 0;
    let gone!: () => void;
    const closed = new Promise<void>((r) => {
      gone = r;
    });
    // The room of the real server; a checkpoint of 200 MB, sent a chunk at a time.
    const huge = createServer(async (req, res) => {
      if (req.url !== '/log/checkpoint') {
        const got = await fetch(`${server.url}${req.url}`);
        res.writeHead(got.status).end(new Uint8Array(await got.arrayBuffer()));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(1 << 16, 0x61);
      const more = (): void => {
        while (sent < 200 * 2 ** 20 && !res.destroyed) {
          sent += chunk.length;
          if (!res.write(chunk)) {
            res.once('drain', more);
            return;
          }
        }
        res.end();
      };
      res.once('close', () => gone());
      more();
    });
    await new Promise<void>((r) => huge.listen(0, '127.0.0.1', r));
    servers.push({ close: () => new Promise((r) => huge.close(r)) });
    const url = `http://127.0.0.1:${(huge.address() as { port: number }).port}`;
    const r = await binAsync(
      ['log', 'watch', '--url', url, '--room-id', roomId, '--state', join(dir, 's'), '--once'],
      dir,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^wai-steer: GET http:\/\/127\.0\.0\.1:\d+\/log\/checkpoint: a body of more than 1048576 bytes, larger than a checkpoint can be\n$/,
    );
    await closed;
    // It stopped reading past its bound: what was sent is what the kernel's buffers took.
    expect(sent).toBeLessThan(32 * 2 ** 20);
  });
});

describe('log watch, watching', () => {
  it('checks every interval, says when the server does not answer, and exits 1 when it forks', async () => {
    const dir = tempDir();
    const { setup, server, roomId } = await startLogged(join(dir, 'room'), {
      interval: 100,
      maxDelay: 500,
    });
    await decide(server.url);
    await until('a checkpoint of one decision', async () => {
      const text = await (await fetch(`${server.url}/log/checkpoint`)).text();
      return Number(text.split('\n')[1]) >= 1;
    });
    const text = await (await fetch(`${server.url}/log/checkpoint`)).text();
    const [origin, size] = text.split('\n') as [string, string];
    const steer = new Uint8Array(
      Buffer.from(
        JSON.parse(readFileSync(join(setup.dir, 'keys', 'steering.jwk'), 'utf8')).d,
        'base64url',
      ),
    );
    const fork = await fakeLog(server, roomId, origin, steer, [
      ...Array.from({ length: Number(size) }, (_, i) =>
        encodeEntry({ t: BigInt(i + 1), digest: new Uint8Array(32).fill(1) }),
      ),
    ]);
    // A door that sends the watch to the server, then to nowhere, then to the fork.
    let target: string | undefined = server.url;
    let checks = 0;
    const door = createServer(async (req, res) => {
      if (req.url === '/log/checkpoint') checks++;
      if (target === undefined) {
        req.socket.destroy();
        return;
      }
      const got = await fetch(`${target}${req.url}`);
      res.writeHead(got.status).end(new Uint8Array(await got.arrayBuffer()));
    });
    await new Promise<void>((r) => door.listen(0, '127.0.0.1', r));
    servers.push({ close: () => new Promise((r) => door.close(r)) });
    const url = `http://127.0.0.1:${(door.address() as { port: number }).port}`;

    let out = '';
    let err = '';
    const io = {
      stdout: {
        write: (c: string | Uint8Array) => {
          out += String(c);
          return true;
        },
      },
      stderr: {
        write: (c: string | Uint8Array) => {
          err += String(c);
          return true;
        },
      },
      cwd: dir,
    };
    const state = join(dir, 'watch.state');
    const watching = main(
      ['log', 'watch', '--url', url, '--room-id', roomId, '--state', state, '--interval', '50ms'],
      io,
    );
    await until('the first checkpoint held', async () => out.includes('held from now on'));
    // An unchanged log is not said at every check: once, then a summary every ten minutes.
    const held = checks;
    await until('ten more checks of the unchanged log', async () => checks >= held + 10);
    expect(out.trim().split('\n')).toHaveLength(1);
    target = undefined;
    await until('the server not answering said', async () => err.includes('log watch: GET'));
    expect(err).toMatch(
      /^wai-steer: log watch: GET http:\/\/127\.0\.0\.1:\d+\/rooms\/[0-9a-f]{64}\/descriptor: .*; again in 50 ms$/m,
    );
    target = fork;
    expect(await watching).toBe(1);
    expect(out).toContain(
      `log ${origin}: the log forked: two checkpoints of ${size} entries with different roots`,
    );
    expect(readFileSync(state, 'utf8')).toBe(text);
  });
});
