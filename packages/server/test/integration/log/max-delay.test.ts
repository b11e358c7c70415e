/**
 * `log.max_delay` on PostgreSQL: the integrator takes the pending entries of transactions below
 * a snapshot's horizon only (so that the log's order is the commits' order), and a transaction
 * left open holds the horizon back. Then no checkpoint is signed that would leave out a decision
 * committed max_delay or more before it: the log waits, and catches up once the transaction
 * ends. Every wait is on the integrator's runs and checkpoints, bounded by ceilings.
 */
import { openCheckpoint } from '@wai-steering/tlog';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LogIntegrator } from '../../../src/log/integrator.js';
import { PgStore } from '../../../src/store/postgres/index.js';
import type { StoredCheckpoint } from '../../../src/store/store.js';
import { TEST_ORIGIN, testSigning, until } from '../../helpers/log.js';
import { type PgCluster, startPostgres } from '../../helpers/postgres.js';
import { decisionAt } from '../../store-contract.js';

let cluster: PgCluster;
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(async () => {
  await cluster?.stop();
});

const nowUs = (): bigint => BigInt(Date.now()) * 1000n;
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

describe('log.max_delay on PostgreSQL', () => {
  it('signs no checkpoint leaving out a decision committed max_delay before it, whatever holds the horizon', async () => {
    const url = await cluster.createDatabase('delay');
    const store = await PgStore.open(url);
    await store.beginLog(TEST_ORIGIN);
    const maxDelayMs = 400;
    const checkpoints: StoredCheckpoint[] = [];
    let lastIssued = 0n;
    const integrators: LogIntegrator[] = [];
    const integrator = () => {
      const i = new LogIntegrator({
        store,
        signing: testSigning(),
        intervalMs: 50,
        maxDelayMs,
        clock: () => {
          lastIssued = nowUs();
          return lastIssued;
        },
        holder: 'test',
        onCheckpoint: (c) => checkpoints.push(c),
      });
      integrators.push(i);
      return i;
    };
    const acked: { digest: string; at: bigint }[] = [];
    let n = 0;
    const commit = async (k: number) => {
      const batch = Array.from({ length: k }, () => decisionAt(BigInt(++n), n, [[]]));
      await store.commit({ records: [], decisions: batch });
      const at = nowUs();
      for (const d of batch) acked.push({ digest: hex(d.digest), at });
    };
    const blocker = new pg.Client({ connectionString: url });
    await blocker.connect();
    try {
      const first = integrator();
      first.start();
      await commit(5);
      await until(() => checkpoints.at(-1)?.size === 5n, 60_000, 'the first five logged');
      await first.stop();
      // Two decisions below the horizon; then a transaction with an id, left open; then three
      // decisions above it (held back), until they are max_delay old by the database's clock.
      await commit(2);
      await blocker.query('BEGIN');
      await blocker.query('SELECT pg_current_xact_id()');
      await commit(3);
      const probe = new pg.Client({ connectionString: url });
      await probe.connect();
      await until(
        async () =>
          (
            await probe.query(
              `SELECT clock_timestamp() - min(at) > $1 * interval '1 millisecond' AS old
               FROM log_pending WHERE xid > pg_snapshot_xmin(pg_current_snapshot())`,
              [maxDelayMs],
            )
          ).rows[0].old === true,
        60_000,
        'the held decisions max_delay old',
      );
      await probe.end();
      // The integrator appends the two, and signs no checkpoint that would leave the three out.
      const second = integrator();
      second.start();
      await until(async () => (await store.logHead())?.size === 7n, 60_000, 'seven integrated');
      const runs = second.runs;
      await until(() => second.runs > runs + 3, 60_000, 'more runs');
      expect(checkpoints.at(-1)?.size).toBe(5n);
      // The transaction ends: the log catches up at the next run.
      await blocker.query('ROLLBACK');
      await until(() => checkpoints.at(-1)?.size === 10n, 60_000, 'all ten logged');
      await second.stop();
      // Every checkpoint holds every decision committed max_delay or more before it.
      const head = await store.logHead();
      const index = new Map(
        (await store.logEntries(0n, head!.size)).map((e) => [hex(e.digest), e.index]),
      );
      expect([...index.keys()]).toEqual(acked.map((d) => d.digest));
      let checked = 0;
      for (const c of checkpoints) {
        const opened = openCheckpoint(c.text, {
          origin: TEST_ORIGIN,
          logKeys: [testSigning().key],
        });
        expect(opened.ok).toBe(true);
        for (const d of acked) {
          if (c.issued < d.at + BigInt(maxDelayMs) * 1000n) continue;
          checked++;
          expect(index.get(d.digest)! < c.size).toBe(true);
        }
      }
      expect(checked).toBeGreaterThan(0);
      expect(integrators.map((i) => i.failures)).toEqual([0, 0]);
    } finally {
      for (const i of integrators) await i.stop();
      await blocker.end();
      await store.close();
    }
  });
});
