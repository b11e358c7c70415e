// The integrator: one at a time by its lease (taken over when the holder stops or dies), a
// failure raised in health once, and `log.max_delay`: every checkpoint issued max_delay or more
// after a decision's commit holds it. Waits are on events (runs, checkpoints), bounded by
// ceilings, never fixed sleeps.
import { openCheckpoint } from '@wai-steering/tlog';
import { afterEach, describe, expect, it } from 'vitest';
import { Health } from '../../src/health.js';
import { LogIntegrator } from '../../src/log/integrator.js';
import { SqliteStore } from '../../src/store/sqlite/index.js';
import type { SteeringStore, StoredCheckpoint } from '../../src/store/store.js';
import { TEST_ORIGIN, testSigning, until } from '../helpers/log.js';
import { tempDir } from '../helpers/setup.js';
import { decisionAt } from '../store-contract.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** Two connections to one SQLite file: two workers of one deployment. */
function twoStores(): [SqliteStore, SqliteStore] {
  const t = tempDir('wai-integrator-');
  const path = `${t.dir}/s.sqlite`;
  const a = new SqliteStore(path);
  const b = new SqliteStore(path);
  cleanup.push(
    t.remove,
    () => a.close(),
    () => b.close(),
  );
  return [a, b];
}

const nowUs = (): bigint => BigInt(Date.now()) * 1000n;

function integrator(
  store: SteeringStore,
  holder: string,
  o: { intervalMs?: number; leaseMs?: number; health?: Health } = {},
): LogIntegrator {
  const i = new LogIntegrator({
    store,
    signing: testSigning(),
    intervalMs: o.intervalMs ?? 30,
    maxDelayMs: 1000,
    clock: nowUs,
    holder,
    ...(o.leaseMs === undefined ? {} : { leaseMs: o.leaseMs }),
    ...(o.health === undefined ? {} : { health: o.health }),
  });
  cleanup.push(() => i.stop());
  return i;
}

let n = 0;
const ev = [[new Uint8Array(32).fill(4)]];
async function commit(store: SteeringStore, k: number): Promise<string[]> {
  const batch = Array.from({ length: k }, () => decisionAt(BigInt(++n), n, ev));
  await store.commit({ records: [], decisions: batch });
  return batch.map((d) => Buffer.from(d.digest).toString('hex'));
}

async function logged(store: SteeringStore): Promise<string[]> {
  const head = await store.logHead();
  return (await store.logEntries(0n, head?.size ?? 0n)).map((e) =>
    Buffer.from(e.digest).toString('hex'),
  );
}

describe('LogIntegrator', () => {
  it('integrates in one instance at a time; another takes over once the holder stops', async () => {
    const [sa, sb] = twoStores();
    await sa.beginLog(TEST_ORIGIN);
    const a = integrator(sa, 'a');
    const b = integrator(sb, 'b');
    a.start();
    await until(() => a.holding && a.runs > 0, 60_000, 'a holding the lease');
    b.start();
    const digests = await commit(sa, 5);
    digests.push(...(await commit(sb, 5)));
    await until(async () => (await sa.logHead())?.size === 10n, 60_000, 'ten entries');
    await until(() => b.runs > 2, 60_000, 'b running');
    expect([a.holding, b.holding, b.appended]).toEqual([true, false, 0]);
    // A clean stop gives the lease up: b takes it at its next run.
    await a.stop();
    digests.push(...(await commit(sa, 3)));
    await until(() => b.holding && b.appended === 3, 60_000, 'b integrating');
    expect(await logged(sa)).toEqual(digests);
  });

  it('takes over from a holder that died, once its lease expires', async () => {
    const [sa, sb] = twoStores();
    await sa.beginLog(TEST_ORIGIN);
    // a runs once with a short lease, then is gone (no timer, no release): a kill.
    const a = new LogIntegrator({
      store: sa,
      signing: testSigning(),
      intervalMs: 30,
      maxDelayMs: 1000,
      clock: nowUs,
      holder: 'a',
      leaseMs: 400,
    });
    const digests = await commit(sa, 4);
    const diedAt = Date.now();
    expect(await a.run()).toBe(4);
    digests.push(...(await commit(sa, 4)));
    const b = integrator(sb, 'b');
    b.start();
    await until(() => b.holding, 60_000, 'b taking the lease');
    // Not before the lease expired (taken at a's run, 400 ms).
    expect(Date.now() - diedAt).toBeGreaterThanOrEqual(400);
    await until(async () => (await sa.logHead())?.size === 8n, 60_000, 'eight entries');
    expect(await logged(sa)).toEqual(digests);
  });

  it('integrates a backlog in slices, a turn of the event loop apart, and signs once at the last', async () => {
    const [store] = twoStores();
    await store.beginLog(TEST_ORIGIN);
    const digests: string[] = [];
    for (let k = 0; k < 6; k++) digests.push(...(await commit(store, 5)));
    // Each transaction notes how many turns ran before it (an immediate a turn, as requests).
    let turns = 0;
    let ticking = true;
    const tick = (): void => {
      turns++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const seen: number[] = [];
    const counting = Object.assign(Object.create(store) as SqliteStore, {
      integrateLog: (...args: Parameters<SqliteStore['integrateLog']>) => {
        seen.push(turns);
        return store.integrateLog(...args);
      },
    });
    const i = new LogIntegrator({
      store: counting,
      signing: testSigning(),
      intervalMs: 30,
      maxDelayMs: 1000,
      clock: nowUs,
      holder: 'a',
      maxEntries: 10,
    });
    cleanup.push(() => i.stop());
    expect(await i.run()).toBe(30);
    ticking = false;
    // Pending rows of 5 entries, at most 10 entries a transaction: three, a turn apart.
    expect(seen).toHaveLength(3);
    expect(seen[1]! > seen[0]! && seen[2]! > seen[1]!).toBe(true);
    expect(i.checkpoints).toBe(1);
    expect((await store.latestLogCheckpoint())?.size).toBe(30n);
    expect(await logged(store)).toEqual(digests);
  });

  it('raises the log cause of health once while integrations fail, and clears it', async () => {
    const [store] = twoStores();
    await store.beginLog(TEST_ORIGIN);
    let failing = 3;
    const flaky = Object.assign(Object.create(store) as SqliteStore, {
      integrateLog: (...args: Parameters<SqliteStore['integrateLog']>) =>
        failing-- > 0 ? Promise.reject(new Error('disk I/O error')) : store.integrateLog(...args),
    });
    const lines: string[] = [];
    const health = new Health({ log: (l) => lines.push(l) });
    const i = integrator(flaky, 'a', { health });
    await commit(store, 2);
    for (let k = 0; k < 3; k++) await i.run();
    expect(health.has('log')).toBe(true);
    expect(i.failures).toBe(3);
    await i.run();
    expect(health.has('log')).toBe(false);
    expect(lines).toEqual([
      "wai-steering: degraded (log): the decision log's integration fails: disk I/O error",
      expect.stringMatching(/^wai-steering: recovered \(log\) after .* s and 3 error\(s\)$/),
    ]);
    expect((await store.logHead())?.size).toBe(2n);
  });

  it('max_delay: every checkpoint issued max_delay or more after a decision’s commit holds it', async () => {
    const [sa, sb] = twoStores();
    await sa.beginLog(TEST_ORIGIN);
    const maxDelayMs = 300;
    const checkpoints: StoredCheckpoint[] = [];
    const make = (store: SteeringStore, holder: string) => {
      const i = new LogIntegrator({
        store,
        signing: testSigning(),
        intervalMs: 40,
        maxDelayMs,
        clock: nowUs,
        holder,
        leaseMs: 250,
        onCheckpoint: (c) => checkpoints.push(c),
      });
      cleanup.push(() => i.stop());
      return i;
    };
    const a = make(sa, 'a');
    const b = make(sb, 'b');
    a.start();
    b.start();
    // Two writers commit concurrently, a few decisions every few ms (signed beforehand); each
    // commit's acknowledgement time is noted.
    const pool = Array.from({ length: 4000 }, () => decisionAt(BigInt(++n), n, ev));
    const acked: { digest: string; at: bigint }[] = [];
    let stop = false;
    const writer = async (store: SteeringStore) => {
      while (!stop && pool.length > 0) {
        const batch = pool.splice(0, 1 + (pool.length % 5));
        await store.commit({ records: [], decisions: batch });
        const at = nowUs();
        for (const d of batch) acked.push({ digest: Buffer.from(d.digest).toString('hex'), at });
        await new Promise((r) => setTimeout(r, 3));
      }
    };
    const writers = [writer(sa), writer(sb)];
    // Until many checkpoints have been issued past the delay of many decisions; halfway, the
    // holder stops (its lease passes to the other).
    await until(() => checkpoints.length >= 8, 120_000, '8 checkpoints');
    await (a.holding ? a : b).stop();
    const count = checkpoints.length;
    await until(() => checkpoints.length >= count + 8, 120_000, '8 more checkpoints');
    stop = true;
    await Promise.all(writers);
    // And every decision is in a checkpoint soon after (a checkpoint comes while entries do).
    await until(
      () => checkpoints[checkpoints.length - 1]!.size === BigInt(acked.length),
      120_000,
      'a checkpoint of every decision',
    );
    const index = new Map((await logged(sa)).map((d, i) => [d, BigInt(i)]));
    let checked = 0;
    for (const c of checkpoints) {
      for (const d of acked) {
        if (c.issued < d.at + BigInt(maxDelayMs) * 1000n) continue;
        checked++;
        expect(index.get(d.digest)! < c.size, `${d.digest} in the checkpoint of ${c.size}`).toBe(
          true,
        );
      }
    }
    // The bound was put to the test: many decisions, many checkpoints past their delay.
    expect(checked).toBeGreaterThan(acked.length);
    expect(index.size).toBe(acked.length);
    // Each checkpoint verifies, and holds entries in the order they were logged.
    const key = testSigning().key;
    for (const c of checkpoints)
      expect(openCheckpoint(c.text, { origin: TEST_ORIGIN, logKeys: [key] }).ok).toBe(true);
  }, 300_000);
});
