// The SQLite store's group commit, alone: where a decision's commit goes. `SqliteStore.commit`
// of batches of decisions shaped as the steering server's (a 135-byte tail, one evidence set,
// `BATCH` decisions a commit, as `pnpm bench:server` measures its group commits), its CPU time a
// decision (the process's, every thread: the checkpointer's copies included), in rounds that
// alternate two stores:
//
//   (s) the store as it is;
//   (n) the same store with its decisions' digest index (`decisions_key`) dropped, by another
//       connection, after it opened: what that one index costs (the store's statements are
//       prepared again by SQLite; the commits do not read the index).
//
// Each store is filled with `FILL` decisions first, since a random index's inserts cost more as it
// outgrows the page cache. `BENCH_PAGE_SIZE=1024` makes both stores' files with pages of that size
// (SQLite's default is 4096). Run: `node packages/server/bench/commit.bench.mjs` after a build.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median } from '@wai-steering/bench';
import Database from 'better-sqlite3';
import { SqliteStore } from '../dist/index.js';

const BATCH = Number(process.env.BENCH_BATCH ?? 28);
const FILL = Number(process.env.BENCH_FILL ?? 200_000);
const MEASURED = Number(process.env.BENCH_MEASURED ?? 50_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PAGE_SIZE =
  process.env.BENCH_PAGE_SIZE === undefined ? undefined : Number(process.env.BENCH_PAGE_SIZE);

const dir = mkdtempSync(join(tmpdir(), 'wai-commit-bench-'));
// One evidence set for every decision: 97 bytes, no pathway (the store reads its count at 96).
const set = new Uint8Array(97);
let t = 1_800_000_000_000_000n;

/** A batch of `BATCH` decisions: random digests, tails whose first 8 bytes are `t`. */
function batch() {
  const decisions = [];
  for (let i = 0; i < BATCH; i++) {
    const tail = new Uint8Array(randomBytes(135));
    new DataView(tail.buffer).setBigUint64(0, t++, true);
    decisions.push({ digest: new Uint8Array(randomBytes(32)), tail, set });
  }
  return { records: [], decisions };
}

async function commitAll(store, n) {
  const batches = Array.from({ length: Math.ceil(n / BATCH) }, batch);
  const c0 = process.cpuUsage();
  for (const b of batches) await store.commit(b);
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / (batches.length * BATCH);
}

try {
  const stores = {};
  for (const name of ['s', 'n']) {
    const path = join(dir, `${name}.sqlite`);
    if (PAGE_SIZE !== undefined) {
      // The page size is the file's from its first write: set before the store makes its tables.
      const db = new Database(path);
      db.pragma(`page_size = ${PAGE_SIZE}`);
      db.pragma('journal_mode = WAL');
      db.close();
    }
    const store = new SqliteStore(path);
    if (name === 'n') {
      const db = new Database(path);
      db.exec('DROP INDEX decisions_key');
      db.close();
    }
    await commitAll(store, FILL);
    stores[name] = store;
  }
  const us = { s: [], n: [] };
  for (let round = 1; round <= ROUNDS; round++) {
    for (const name of ['s', 'n']) us[name].push(await commitAll(stores[name], MEASURED));
    console.log(
      `round ${round}: (s) ${us.s.at(-1).toFixed(1)} µs a decision, (n) without the digest index ${us.n.at(-1).toFixed(1)} µs`,
    );
  }
  const s = median(us.s);
  const n = median(us.n);
  console.log(
    `the store's commit, batches of ${BATCH}, after ${FILL} decisions${PAGE_SIZE === undefined ? '' : `, pages of ${PAGE_SIZE} bytes`}: ${s.toFixed(1)} µs of CPU a decision; without the digest index ${n.toFixed(1)} µs: the index ${(s - n).toFixed(1)} µs, ${((100 * (s - n)) / s).toFixed(0)} % (medians of ${ROUNDS} rounds)`,
  );
  for (const store of Object.values(stores)) await store.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
