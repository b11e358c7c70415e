// The SQLite store's group commit, alone: where a decision's commit goes. `SqliteStore.commit`
// of batches of decisions shaped as the steering server's (a 135-byte tail, one evidence set,
// `BATCH` decisions a commit, as `pnpm bench:server` measures its group commits), its CPU time a
// decision (the process's, every thread: the checkpointer's copies included), in rounds that
// alternate two stores:
//
//   (s) the store as it is: the decisions' keys merged into `decision_keys` in sorted batches,
//       between commits (the merges' CPU counted);
//   (i) the same store with each decision's key also indexed at commit (an index on
//       `decisions (key)` made by another connection after it opened), as the schema's version 2
//       did: what a random B-tree insert per decision costs.
//
// Each store is filled with `FILL` decisions first, since a random index's inserts cost more as it
// outgrows the page cache. Then the lookup of a decision by its digest, in (s): µs a lookup, of
// decisions merged and of decisions not yet. `BENCH_PAGE_SIZE=1024` makes both stores' files with pages of that size
// (SQLite's default is 4096). Run: `node packages/server/bench/commit.bench.mjs` after a build.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { median } from '@wai-steering/bench';
import Database from 'better-sqlite3';
import { SqliteStore } from '../dist/index.js';
import { storeDir } from './load.mjs';

const BATCH = Number(process.env.BENCH_BATCH ?? 28);
const FILL = Number(process.env.BENCH_FILL ?? 200_000);
const MEASURED = Number(process.env.BENCH_MEASURED ?? 50_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PAGE_SIZE =
  process.env.BENCH_PAGE_SIZE === undefined ? undefined : Number(process.env.BENCH_PAGE_SIZE);

const dir = mkdtempSync(join(storeDir(), 'wai-commit-bench-'));
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
  for (const b of batches) {
    await store.commit(b);
    // A turn of the event loop between commits, as in the server: a merge runs its slices there.
    await new Promise(setImmediate);
  }
  await store.keyMergeSettled();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / (batches.length * BATCH);
}

try {
  const stores = {};
  for (const name of ['s', 'i']) {
    const path = join(dir, `${name}.sqlite`);
    if (PAGE_SIZE !== undefined) {
      // The page size is the file's from its first write: set before the store makes its tables.
      const db = new Database(path);
      db.pragma(`page_size = ${PAGE_SIZE}`);
      db.pragma('journal_mode = WAL');
      db.close();
    }
    const store = new SqliteStore(path);
    if (name === 'i') {
      const db = new Database(path);
      db.exec('CREATE INDEX decisions_key ON decisions (key)');
      db.close();
    }
    await commitAll(store, FILL);
    stores[name] = store;
  }
  const us = { s: [], i: [] };
  for (let round = 1; round <= ROUNDS; round++) {
    for (const name of ['s', 'i']) us[name].push(await commitAll(stores[name], MEASURED));
    console.log(
      `round ${round}: (s) ${us.s.at(-1).toFixed(1)} µs a decision, (i) indexed at commit ${us.i.at(-1).toFixed(1)} µs`,
    );
  }
  const s = median(us.s);
  const i = median(us.i);
  console.log(
    `the store's commit, batches of ${BATCH}, after ${FILL} decisions${PAGE_SIZE === undefined ? '' : `, pages of ${PAGE_SIZE} bytes`}: ${s.toFixed(1)} µs of CPU a decision, keys merged in batches; ${i.toFixed(1)} µs indexed at commit: (s)/(i) ${(s / i).toFixed(3)} (medians of ${ROUNDS} rounds)`,
  );
  // Lookups by digest in (s), of digests it does not hold (the reads alone: a decision found is
  // then rebuilt and hashed, as ever): right after a merge, and with the most decisions a merge
  // leaves after it (16 000, just under the rows that start one).
  const absent = Array.from({ length: 1000 }, () => new Uint8Array(randomBytes(32)));
  const lookup = async () => {
    const c0 = process.cpuUsage();
    for (const d of absent)
      if ((await stores.s.getDecision(d)) !== undefined) throw new Error('held?');
    const c = process.cpuUsage(c0);
    return (c.user + c.system) / absent.length;
  };
  await stores.s.keyMergeSettled(true);
  const afterMerge = await lookup();
  await commitAll(stores.s, 16_000);
  const beforeMerge = await lookup();
  console.log(
    `a lookup by digest in (s): ${afterMerge.toFixed(1)} µs right after a merge, ${beforeMerge.toFixed(1)} µs with 16 000 decisions not yet merged`,
  );
  for (const store of Object.values(stores)) await store.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
