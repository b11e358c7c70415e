// Finding 2: the store file deleted while running went unnoticed (200s, health 200, no log).
// Finding 8: on a full disk, commits failed (503, correctly) but /healthz stayed 200 and the log
// got a stack trace per request. Now health turns 503 with the cause, steering answers 503 while
// the store is gone, and each cause is logged once.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/read.js';
import { setupDemo } from '../src/demo/setup.js';
import { startServer } from '../src/server.js';
import { SqliteStore } from '../src/store/sqlite/index.js';
import { fileServer, freePort, get, TestClock, tempDir, text } from './helpers/setup.js';

let cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.reverse()) await f();
  cleanup = [];
});

/** Steering requests from `workers` clients until `stop()`, each bounded to `max` requests. */
function load(url: string, workers: number, max: number) {
  const statuses = new Map<number, number>();
  let stopped = false;
  const run = async (): Promise<void> => {
    for (let i = 0; i < max && !stopped; i++) {
      const res = await fetch(`${url}/steer?_HLS_pathway=cdn-a`);
      await res.arrayBuffer();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    }
  };
  const done = Promise.all(Array.from({ length: workers }, run));
  return {
    statuses,
    stop: async () => {
      stopped = true;
      await done;
    },
  };
}

/** Polls `what` until it holds; at most `tries` polls 50 ms apart (a generous ceiling: 60 s). */
async function until(what: () => Promise<boolean>, tries = 1200): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await what()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the condition was not met');
}

const health = async (url: string) => {
  const res = await fetch(`${url}/healthz`);
  return {
    status: res.status,
    body: (await res.json()) as { status: string; causes?: { cause: string }[] },
  };
};

describe('the store file removed while running', () => {
  it('turns health and steering to 503, logged once', async () => {
    const t = tempDir('wai-removed-');
    cleanup.push(t.remove);
    const lines: string[] = [];
    const clock = new TestClock(BigInt(Date.now()) * 1000n);
    const { server, config } = await fileServer(t.dir, clock, {
      overrides: {
        budget: {
          trustedProxies: [],
          requests: { rate: 0, burst: 1 },
          sessions: { rate: 0, burst: 1 },
          maxClients: 10,
        },
      },
      start: { watchMs: 50, log: (l) => lines.push(l) },
    });
    cleanup.push(() => server.close());
    const traffic = load(server.url, 4, 2000);
    await until(async () => (traffic.statuses.get(200) ?? 0) >= 40);
    expect((await health(server.url)).status).toBe(200);

    unlinkSync(config.store.path!);
    await until(async () => (await health(server.url)).status === 503);
    const h = await health(server.url);
    expect(h.body).toMatchObject({ status: 'degraded', causes: [{ cause: 'store' }] });
    const steer = await get(server.app, '/steer?_HLS_throughput=5000000');
    expect(steer.status).toBe(503);
    // A DASH client is answered 429, which it honours (docs/players.md).
    expect((await get(server.app, '/steer?_DASH_throughput=5000000')).status).toBe(429);
    expect(JSON.parse(text(steer.body))).toMatchObject({ error: 'store_unavailable' });
    expect(steer.headers['retry-after']).toBeDefined();
    // Load goes on against the degraded server; still one line.
    const after = traffic.statuses.get(503) ?? 0;
    await until(async () => (traffic.statuses.get(503) ?? 0) >= after + 40);
    await traffic.stop();
    expect(lines.filter((l) => /degraded \(store\)/.test(l))).toHaveLength(1);
    expect(lines).toHaveLength(1);
    expect(server.engine.metrics.render()).toMatch(
      /wai_steering_store_errors_total\{op="file"\} 1/,
    );

    // The next start does not create an empty store in its place.
    await server.close();
    const asConfigured = { ...config, store: { ...config.store, create: false } };
    await expect(startServer(asConfigured, { clock: clock.now })).rejects.toThrow(
      /^store\.path: .* does not exist: a new store is created only when asked/,
    );
  });

  it('notices another file put at the path', async () => {
    const t = tempDir('wai-replaced-');
    cleanup.push(t.remove);
    const lines: string[] = [];
    const clock = new TestClock(BigInt(Date.now()) * 1000n);
    const { server, config } = await fileServer(t.dir, clock, {
      start: { watchMs: 50, log: (l) => lines.push(l) },
    });
    cleanup.push(() => server.close());
    const other = join(t.dir, 'other.sqlite');
    // Closed (its checkpointer gone) before it is moved: nothing writes in the directory after.
    await new SqliteStore(other).close();
    execFileSync('mv', [other, config.store.path!]);
    await until(async () => (await health(server.url)).status === 503);
    expect(lines).toEqual([
      expect.stringMatching(/degraded \(store\): another file sits at the store path/),
    ]);
  });
});

describe("the store's -wal removed while running", () => {
  it('turns health and steering to 503, logged once: the commits not yet checkpointed would be lost', async () => {
    const t = tempDir('wai-wal-');
    cleanup.push(t.remove);
    const lines: string[] = [];
    const clock = new TestClock(BigInt(Date.now()) * 1000n);
    const { server, config } = await fileServer(t.dir, clock, {
      start: { watchMs: 50, log: (l) => lines.push(l) },
    });
    cleanup.push(() => server.close());
    expect((await get(server.app, '/steer')).status).toBe(200);
    unlinkSync(`${config.store.path!}-wal`);
    await until(async () => (await health(server.url)).status === 503);
    expect((await health(server.url)).body).toMatchObject({
      status: 'degraded',
      causes: [{ cause: 'store' }],
    });
    const steer = await get(server.app, '/steer?_HLS_pathway=cdn-a');
    expect([steer.status, JSON.parse(text(steer.body)).error]).toEqual([503, 'store_unavailable']);
    expect(lines).toEqual([
      expect.stringMatching(/degraded \(store\): the store's -wal or -shm file was removed/),
    ]);
  });
});

describe('a decision row altered inside the store', () => {
  it('answers 500 store_damaged, not 404; health says damaged; one line names the digest', async () => {
    const t = tempDir('wai-damaged-');
    cleanup.push(t.remove);
    const lines: string[] = [];
    const clock = new TestClock(BigInt(Date.now()) * 1000n);
    const { server, config } = await fileServer(t.dir, clock, {
      start: { log: (l) => lines.push(l) },
    });
    cleanup.push(() => server.close());
    const digests: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await get(server.app, '/steer');
      expect(res.status).toBe(200);
      digests.push(JSON.parse(text(res.body))['science.transaction.wai-decision'].slice(-64));
      clock.advance(10);
    }
    // One byte of the second decision's signed fields changed by another connection to the file:
    // SQLite's quick_check passes.
    const hex = digests[1]!;
    const key = Buffer.from(hex, 'hex').readBigInt64BE(0);
    const db = new Database(config.store.path!);
    const row = db.prepare('SELECT id, tail FROM decisions WHERE key = ?').get(key) as {
      id: number;
      tail: Buffer;
    };
    const tail = Buffer.from(row.tail);
    tail[10] = tail[10]! ^ 0x5a;
    db.prepare('UPDATE decisions SET tail = ? WHERE id = ?').run(tail, row.id);
    expect(db.pragma('quick_check', { simple: true })).toBe('ok');
    db.close();

    for (let i = 0; i < 3; i++) {
      const res = await get(server.app, `/decisions/${hex}`);
      expect(res.status).toBe(500);
      expect(JSON.parse(text(res.body))).toMatchObject({ error: 'store_damaged' });
    }
    // The others are served; an absent one is 404.
    expect((await get(server.app, `/decisions/${digests[0]}`)).status).toBe(200);
    expect((await get(server.app, `/decisions/${'0'.repeat(64)}`)).status).toBe(404);
    // The listing stops at the damaged row rather than list it under a digest never signed.
    const listing = await get(server.app, '/decisions?from=0');
    expect([listing.status, JSON.parse(text(listing.body)).error]).toEqual([500, 'store_damaged']);
    // Health: damaged (steering goes on: what is decided now is sound).
    const h = await health(server.url);
    expect(h).toMatchObject({
      status: 200,
      body: { status: 'damaged', causes: [{ cause: 'store_damaged' }] },
    });
    expect((await get(server.app, '/steer')).status).toBe(200);
    // One line per damaged row, naming its digest, whatever the reads.
    expect(lines.filter((l) => l.includes(hex))).toHaveLength(1);
    expect(lines).toHaveLength(2); // the row by digest, and by the listing's key
    expect(server.engine.metrics.render()).toMatch(
      /wai_steering_store_damaged_total\{what="decision"\} 2/,
    );
  });
});

/** A tmpfs of `size` at `dir` when this process may mount one (root), else `undefined`. */
function tmpfs(dir: string, size: string): (() => void) | undefined {
  if (process.getuid?.() !== 0) return undefined;
  mkdirSync(dir, { recursive: true });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    return undefined;
  }
  return () => execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
}

describe('a full disk', () => {
  it('turns health to 503 while commits fail, logs once, and recovers', async () => {
    const t = tempDir('wai-full-');
    cleanup.push(t.remove);
    const lines: string[] = [];
    const clock = new TestClock(BigInt(Date.now()) * 1000n);
    const disk = join(t.dir, 'disk');
    const unmount = tmpfs(disk, '2m');
    let fill: () => void;
    let free: () => void;
    let server: Awaited<ReturnType<typeof startServer>>;
    if (unmount !== undefined) {
      // A real full disk: the store on a 2 MB tmpfs, a filler taking what is left.
      cleanup.push(unmount);
      const port = await freePort();
      const setup = setupDemo(t.dir, {
        port,
        periodMs: 2000,
        storePath: join(disk, 'store.sqlite'),
      });
      server = await startServer(
        {
          ...loadConfig(setup.configPath),
          budget: {
            trustedProxies: [],
            requests: { rate: 0, burst: 1 },
            sessions: { rate: 0, burst: 1 },
            maxClients: 10,
          },
        },
        { clock: clock.now, log: (l) => lines.push(l) },
      );
      const filler = join(disk, 'filler');
      fill = () => {
        try {
          writeFileSync(filler, Buffer.alloc(4 * 1024 * 1024));
        } catch {
          // ENOSPC: the disk is full, which is the point
        }
      };
      free = () => rmSync(filler, { force: true });
    } else {
      // No tmpfs here: the same failure injected where SQLite would raise it.
      const started = await fileServer(t.dir, clock, { start: { log: (l) => lines.push(l) } });
      server = started.server;
      const store = server.store;
      const commit = store.commit.bind(store);
      let full = false;
      store.commit = (batch) => {
        if (full)
          throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
        return commit(batch);
      };
      fill = () => {
        full = true;
      };
      free = () => {
        full = false;
      };
    }
    cleanup.push(() => server.close());
    expect((await get(server.app, '/steer')).status).toBe(200);
    fill();
    const statuses: number[] = [];
    for (let i = 0; i < 2000 && !statuses.includes(503); i++) {
      const res = await get(server.app, '/steer?_HLS_throughput=5000000');
      statuses.push(res.status);
      clock.advance(10);
    }
    expect(statuses).toContain(503);
    // Commits go on failing for a while: one line, and a count.
    for (let i = 0; i < 200; i++) {
      expect((await get(server.app, '/steer?_HLS_throughput=5000000')).status).toBe(503);
    }
    const h = await get(server.app, '/healthz');
    expect(h.status).toBe(503);
    expect(JSON.parse(text(h.body))).toMatchObject({
      status: 'degraded',
      causes: [{ cause: 'commit' }],
    });
    const degraded = lines.filter((l) => /degraded \(commit\)/.test(l));
    expect(degraded).toHaveLength(1);
    expect(degraded[0]).toMatch(/SQLITE_FULL|disk is full/);
    expect(lines.join('\n')).not.toMatch(/\n\s+at /);
    expect(server.engine.metrics.render()).toMatch(
      /wai_steering_store_errors_total\{op="commit"\} (\d+)/,
    );
    const errors = Number(
      /wai_steering_store_errors_total\{op="commit"\} (\d+)/.exec(
        server.engine.metrics.render(),
      )![1],
    );
    expect(errors).toBeGreaterThanOrEqual(201);

    free();
    expect((await get(server.app, '/steer')).status).toBe(200);
    expect((await get(server.app, '/healthz')).status).toBe(200);
    expect(lines.filter((l) => /recovered \(commit\)/.test(l))).toHaveLength(1);
  });
});
