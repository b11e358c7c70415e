/**
 * Integrators racing on one PostgreSQL store, each a child process integrating without the lease
 * (as when a holder's lease ran out while it worked), one of them killed with `kill -9` in the
 * middle of an integration and another started in its place, while decisions are committed: the
 * log ends as one log. Every pending entry once, in the order of the commits; its head, its
 * checkpoint and every tile and bundle those of its entries integrated at once; the same from
 * each integrator.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  emptyLogState,
  encodeEntry,
  integrate,
  openCheckpoint,
  tilePath,
} from '@wai-steering/tlog';
import { nodeBackend } from '@wai-steering/wire/node';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { PgStore } from '../../../src/store/postgres/index.js';
import { buildChild, exited } from '../../helpers/child.js';
import { TEST_ORIGIN, testSigning, until } from '../../helpers/log.js';
import { type PgCluster, startPostgres } from '../../helpers/postgres.js';
import { decisionAt, fakeRecord } from '../../store-contract.js';

const BACKLOG_ROWS = 150;
const ROW_ENTRIES = 1000;
/** Each integration takes at most this many: many integrations, each a race for the head. */
const BATCH = 10_000;

interface Integrator {
  readonly proc: ChildProcess;
  /** Entries appended by each of its integrations, as it told them. */
  readonly appended: number[];
  /** Its `DONE` line's fields once it stopped. */
  readonly done: Promise<string[]>;
}

async function startIntegrator(url: string, name: string): Promise<Integrator> {
  const script = (await buildChild()).replace(/child-server\.js$/, 'child-integrator.js');
  const proc = spawn(process.execPath, [script, `${url}?application_name=${name}`, String(BATCH)], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stderr!.on('data', (c) => {
    err += c;
  });
  const appended: number[] = [];
  let ready!: () => void;
  let finished!: (fields: string[]) => void;
  const started = new Promise<void>((resolve) => {
    ready = resolve;
  });
  const done = new Promise<string[]>((resolve, reject) => {
    finished = resolve;
    proc.once('exit', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`${name} exited (${code ?? signal}): ${err}`));
    });
  });
  // Told only by the one killed: a rejection nobody waits on is no failure of the test.
  done.catch(() => {});
  proc.stdout!.on('data', (c) => {
    out += c;
    for (let nl = out.indexOf('\n'); nl >= 0; nl = out.indexOf('\n')) {
      const line = out.slice(0, nl).split(' ');
      out = out.slice(nl + 1);
      if (line[0] === 'READY') ready();
      if (line[0] === 'APPENDED') appended.push(Number(line[1]));
      if (line[0] === 'DONE') finished(line.slice(1));
    }
  });
  await Promise.race([started, done]);
  return { proc, appended, done };
}

describe('integrators racing on one PostgreSQL store', () => {
  const children: ChildProcess[] = [];
  let cluster: PgCluster | undefined;
  afterAll(async () => {
    for (const c of children) {
      if (c.exitCode === null && c.signalCode === null) {
        c.kill('SIGKILL');
        await exited(c);
      }
    }
    await cluster?.stop();
  });

  it('end with one log, the same from each, one of them killed mid-integration', async () => {
    cluster = await startPostgres();
    const url = await cluster.createDatabase('race');
    const store = await PgStore.open(url);
    await store.beginLog(TEST_ORIGIN);
    const db = new pg.Client({ connectionString: url });
    db.on('error', () => {});
    await db.connect();
    try {
      // A backlog of pending entries (as if committed by decisions), in its order.
      const backlog: Buffer[] = [];
      for (let r = 0; r < BACKLOG_ROWS; r++) {
        const entries = randomBytes(40 * ROW_ENTRIES);
        for (let i = 0; i < ROW_ENTRIES; i++) backlog.push(entries.subarray(40 * i, 40 * i + 40));
        await db.query('INSERT INTO log_pending (entries) VALUES ($1)', [entries]);
      }
      // Decisions committed while they race, a few a commit, each noted.
      const record = fakeRecord(1n, 2n, 1);
      await store.commit({ records: [record], decisions: [] });
      const committed: string[] = [];
      let n = 0;
      const commitSome = async () => {
        const batch = Array.from({ length: 5 }, () =>
          decisionAt(1_000_000n + BigInt(n), n++, [[record.digest]]),
        );
        await store.commit({ records: [], decisions: batch });
        for (const d of batch) committed.push(Buffer.from(d.digest).toString('hex'));
      };

      const a = await startIntegrator(url, 'race_a');
      const b = await startIntegrator(url, 'race_b');
      children.push(a.proc, b.proc);
      // Both integrate (each has appended), then A is seen with its integration open (a
      // transaction on the log's keys, bundles or tiles) and killed at once.
      await until(
        async () => {
          await commitSome();
          return a.appended.length > 0 && b.appended.length > 0;
        },
        120_000,
        'both integrators appending',
      );
      await until(
        async () => {
          const { rows } = await db.query(
            `SELECT count(*)::int AS n FROM pg_stat_activity
             WHERE application_name = 'race_a' AND xact_start IS NOT NULL
               AND query ~ 'log_(bundles|tiles|keys)'`,
          );
          if (rows[0].n > 0) return true;
          await commitSome();
          return false;
        },
        120_000,
        'an integration of A under way',
      );
      a.proc.kill('SIGKILL');
      await exited(a.proc);

      // C in A's place; B and C race on until each has appended decisions committed now.
      const c = await startIntegrator(url, 'race_c');
      children.push(c.proc);
      const before = { b: b.appended.length, c: c.appended.length };
      await until(
        async () => {
          await commitSome();
          return b.appended.length > before.b && c.appended.length > before.c;
        },
        120_000,
        'B and C appending',
      );
      b.proc.stdin!.write('stop\n');
      c.proc.stdin!.write('stop\n');
      const [fromB, fromC] = await Promise.all([b.done, c.done]);

      // The same head, checkpoint and tiles from both.
      expect(fromC).toEqual(fromB);
      const total = backlog.length + committed.length;
      expect(fromB![0]).toBe(String(total));

      // Every pending entry once: the backlog first, in its order, then every decision.
      const entries = await store.logEntries(0n, BigInt(total));
      expect(entries.length).toBe(total);
      const hex = entries.map((e) => Buffer.from(e.digest).toString('hex'));
      expect(hex.slice(0, backlog.length)).toEqual(
        backlog.map((e) => e.subarray(8).toString('hex')),
      );
      expect(hex.slice(backlog.length).sort()).toEqual([...committed].sort());

      // The log of these entries integrated at once: its root is the head's and the
      // checkpoint's, and each tile and bundle stored is its own.
      const once = integrate(
        emptyLogState(),
        entries.map((e) => encodeEntry({ t: e.t, digest: e.digest })),
        nodeBackend,
      );
      const head = (await store.logHead())!;
      expect(Buffer.from(head.root).equals(Buffer.from(once.root))).toBe(true);
      const checkpoint = await store.latestLogCheckpoint();
      const opened = openCheckpoint(checkpoint!.text, {
        origin: TEST_ORIGIN,
        logKeys: [testSigning().key],
      });
      expect(opened.ok && opened.value.checkpoint.size).toBe(BigInt(total));
      expect(
        opened.ok && Buffer.from(opened.value.checkpoint.root).equals(Buffer.from(once.root)),
      ).toBe(true);
      // (Level 0 is derived from the bundles: the store keeps level 1 and above.)
      const made = new Map(
        [...once.tiles.filter((t) => t.tile.level !== 0), ...once.bundles].map((t) => [
          tilePath({ ...t.tile, width: 256 }),
          t.data,
        ]),
      );
      const { rows: stored } = await db.query<{ level: number; idx: string; data: Buffer }>(
        `SELECT level, idx::text AS idx, data FROM log_tiles
         UNION ALL SELECT -1, idx::text, data FROM log_bundles`,
      );
      let checked = 0;
      for (const s of stored) {
        const level = s.level === -1 ? 'entries' : s.level;
        const data = made.get(tilePath({ level, index: BigInt(s.idx), width: 256 }));
        expect(data !== undefined && Buffer.from(data).equals(s.data), `${level}/${s.idx}`).toBe(
          true,
        );
        checked++;
      }
      expect(checked).toBe(made.size);
    } finally {
      await db.end();
      await store.close();
    }
  }, 600_000);
});
