/**
 * The decision log's integrator killed with `kill -9` in the middle of an integration (its
 * transaction seen open in PostgreSQL), under load on two instances: the other instance takes
 * the lease over once it expires, and the log holds every pending entry and every decision
 * stored exactly once, in the order of their commits; the killed instance started again serves
 * the same checkpoint and tiles.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { setupDemo } from '../../../src/demo/setup.js';
import { PgStore } from '../../../src/store/postgres/index.js';
import { type Child, exited, spawnChild } from '../../helpers/child.js';
import {
  checkServedLog,
  fetchLogFile,
  logKeyOf,
  readServedLog,
  servedEntries,
  until,
} from '../../helpers/log.js';
import { type PgCluster, startPostgres } from '../../helpers/postgres.js';
import { freePort, tempDir } from '../../helpers/setup.js';

/** Pending entries written before the instances start: a backlog the integrator works through. */
const BACKLOG_ROWS = 300;
const ROW_ENTRIES = 1000;

describe('the integrator killed mid-integration', () => {
  const t = tempDir('wai-log-kill9-');
  const children: Child[] = [];
  let cluster: PgCluster | undefined;
  afterAll(async () => {
    for (const c of children) {
      if (c.proc.exitCode === null && c.proc.signalCode === null) {
        c.proc.kill('SIGKILL');
        await exited(c.proc);
      }
    }
    await cluster?.stop();
    t.remove();
  });

  it('is taken over by another instance; nothing lost or doubled', async () => {
    cluster = await startPostgres();
    const url = await cluster.createDatabase('kill9');
    // The schema, then a backlog of pending entries (as if committed by decisions).
    await (await PgStore.open(url)).close();
    const db = new pg.Client({ connectionString: url });
    // The cluster stops at the end with this connection open: its end is no error of the test.
    db.on('error', () => {});
    await db.connect();
    const backlog: string[] = [];
    for (let r = 0; r < BACKLOG_ROWS; r++) {
      const entries = randomBytes(40 * ROW_ENTRIES);
      for (let i = 0; i < ROW_ENTRIES; i++) {
        backlog.push(entries.subarray(40 * i + 8, 40 * i + 40).toString('hex'));
      }
      await db.query('INSERT INTO log_pending (entries) VALUES ($1)', [entries]);
    }
    const setup = setupDemo(t.dir, { port: 8080, periodMs: 500, budgets: false });
    const base = JSON.parse(readFileSync(setup.configPath, 'utf8'));
    const ports: number[] = [];
    const configs: string[] = [];
    for (const name of ['a', 'b']) {
      const port = await freePort();
      const path = join(t.dir, `config-${name}.json`);
      writeFileSync(
        path,
        JSON.stringify({
          ...base,
          listen: { host: '127.0.0.1', port },
          store: { url },
          log: { interval: '200ms', max_delay: '1s' },
        }),
      );
      ports.push(port);
      configs.push(path);
    }
    // A starts first: it takes the lease and works through the backlog, 100 000 at a time.
    const a = await spawnChild(configs[0]!);
    children.push(a);
    const b = await spawnChild(configs[1]!);
    children.push(b);
    const origin = `127.0.0.1:${ports[0]}/log`;

    // Both decide meanwhile; every manifest served is noted.
    const served: string[] = [];
    let stop = false;
    const steer = async (base: string) => {
      while (!stop) {
        try {
          const res = await fetch(`${base}/steer`);
          const body = await res.text();
          if (res.status === 200) {
            served.push(
              (JSON.parse(body)['science.transaction.wai-decision'] as string).slice(-64),
            );
          }
        } catch {
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    };
    const loads = [a.url, a.url, b.url, b.url].map(steer);

    // A's integration seen open in the database (a transaction on the log's entry bundles or
    // keys), then A killed at once.
    let open = false;
    await until(
      async () => {
        const { rows } = await db.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity
           WHERE datname = current_database() AND pid <> pg_backend_pid()
             AND xact_start IS NOT NULL AND query ~ 'log_(bundles|tiles|keys)'`,
        );
        open = rows[0].n > 0;
        return open;
      },
      120_000,
      'an integration under way',
    );
    a.proc.kill('SIGKILL');
    await exited(a.proc);
    // The killed transaction never commits: while the backlog lasts, the head holds whole
    // integrations of 100 000 entries only.
    const atKill = Number((await db.query('SELECT size::text AS size FROM log_head')).rows[0].size);
    if (atKill < BACKLOG_ROWS * ROW_ENTRIES) expect(atKill % 100_000).toBe(0);

    // B decides on, then takes the lease over and integrates everything.
    await until(() => served.length > 200, 120_000, 'decisions served');
    stop = true;
    await Promise.all(loads);
    const stored = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM decisions'))
      .rows[0]!.n;
    const total = BACKLOG_ROWS * ROW_ENTRIES + stored;
    await until(
      async () => {
        const res = await fetch(`${b.url}/log/checkpoint`);
        return res.status === 200 && (await res.text()).split('\n')[1] === String(total);
      },
      180_000,
      `a checkpoint of all ${total} entries from B`,
    );
    const key = logKeyOf(origin, setup.steering.publicKey);
    const log = await readServedLog(b.url, origin, key);
    const entries = await servedEntries(log);
    expect(entries.length).toBe(total);
    // The backlog first, in its order; then every decision stored, once.
    expect(entries.slice(0, backlog.length).map((e) => e.digest)).toEqual(backlog);
    const decisions = entries.slice(backlog.length).map((e) => e.digest);
    expect(new Set(decisions).size).toBe(stored);
    const logged = new Set(decisions);
    expect(served.filter((d) => !logged.has(d))).toEqual([]);
    // A sample of the decisions proved by the served tiles and by /log/proof.
    await checkServedLog(
      b.url,
      origin,
      key,
      served.filter((_, i) => i % 20 === 0),
    );
    const lease = await db.query('SELECT holder FROM log_lease');
    expect(lease.rows.length).toBe(1);

    // A started again serves the same checkpoint, and the same tiles and bundles byte for byte.
    const again = await spawnChild(configs[0]!);
    children.push(again);
    await until(
      async () => {
        const [ta, tb] = await Promise.all(
          [again, b].map(async (c) => (await fetch(`${c.url}/log/checkpoint`)).text()),
        );
        return ta === tb;
      },
      60_000,
      'the same checkpoint from A started again and from B',
    );
    const fromA = await readServedLog(again.url, origin, key);
    expect(fromA.text).toBe(log.text);
    for (const [path, bytes] of log.fetched) {
      const other = await fetchLogFile(again.url, path);
      expect(other !== undefined && Buffer.from(other).equals(Buffer.from(bytes)), path).toBe(true);
    }
    await db.end();
  }, 600_000);
});
