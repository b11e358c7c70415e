// `pnpm bench:server`, its last part: the decision log.
//
// (a) What the log costs a steering server: the same steering load (Debian's wrk, as the
//     server's bench, autocannon where it is missing; a distinct session per request, 3
//     pathways, 36 records named per decision, SQLite) on one server whose log's append is
//     switched on and off between rounds (an internal switch of the bench: with it off, the
//     integrator has nothing to do), rounds alternating; the server's CPU per request. The
//     rounds' ratios swing by more than the log costs, so the cost is also measured in parts, in
//     this process, rounds alternating: a group commit of 16 decisions with and without the
//     append (the hot path), and the integration of a second's entries at the rate served (the
//     process's CPU, and its main thread's alone); their sum against the server's CPU per
//     decision.
// (b) Integration: entries pending in the store (one row per commit of 64 decisions, as a
//     server writes them) integrated in batches as the integrator takes them (the leaf hashes,
//     the tiles, the checkpoint signed, the store's writes), entries a second of CPU time: on
//     SQLite everything is in the bench's process; on PostgreSQL the bench's process and the
//     database's cluster are counted apart, then together (the goal's measure: ≥ 170 000 a
//     second with batches of 100 000), in rounds that alternate the store as it is with its
//     statements before schema 6 (`pg-before.mjs`), each on a cluster of its own, after a
//     round that warms the process and is not counted.
// (c) The writer's SHA-256 in that integration: the same pending entries (SQLite, batches of
//     20 000) integrated with the writer's own (`wasmTreeHashing` of `@wai-steering/tlog`, a
//     batch a call) and with the libraries a call a message (hash-wasm, node:crypto's one-shot
//     `hash`), rounds alternating; the process's CPU an entry, and the share of it the module
//     saves against the fastest library (the project keeps its own SHA-256 only while that is at
//     least 20 %; docs/decisions.md).
//
// `node bench/log.bench.mjs` runs it alone (after `pnpm build`); `LOG_BENCH_ONLY=hashing`, (c)
// alone.

import { hash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { median } from '@wai-steering/bench';
import { ed25519Signer } from '@wai-steering/tlog';
import { nodeBackend } from '@wai-steering/wire/node';
import Database from 'better-sqlite3';
import { createSHA256 } from 'hash-wasm';
import pg from 'pg';
import {
  PgStore,
  planIntegration,
  SqliteStore,
  writerBackend,
  writerHashReady,
} from '../dist/index.js';
import { setupDemo, startPostgres } from '../dist/testkit.js';
import { goal, keep } from './goals.mjs';
import {
  clusterCpuOf,
  cpuOf,
  freePort,
  hopsFor,
  LOADER,
  load,
  loadRun,
  start,
  stop,
  storeDir,
} from './load.mjs';
import { installBefore, undoSchema6 } from './pg-before.mjs';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
// Six rounds by default: a round's ratio moves by more than the log costs.
const ROUNDS = Number(process.env.LOG_BENCH_ROUNDS ?? process.env.BENCH_ROUNDS ?? 6);
const ENTRIES = Number(process.env.LOG_BENCH_ENTRIES ?? 200_000);

/** The calling thread's time on the CPU, ns (Linux's schedstat: exact, not in clock ticks). */
function mainThreadNs() {
  return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);
}

async function room(dir) {
  const port = await freePort();
  const setup = setupDemo(dir, { port, periodMs: 10_000, windowPeriods: 6, budgets: false });
  const config = JSON.parse(readFileSync(setup.configPath, 'utf8'));
  writeFileSync(
    setup.configPath,
    JSON.stringify({ ...config, store: { ...config.store, create: true } }),
  );
  return setup;
}

const signing = {
  origin: 'bench.example/log',
  signer: ed25519Signer('bench.example/log', new Uint8Array(32).fill(1), nodeBackend),
  backend: writerBackend,
};

/** (a): the same load with the log and without its append, and the log's cost in parts. */
async function costOfTheLog() {
  // One server, its append switched on and off between rounds: two processes, even of the same
  // build, differ by more than the log costs (their JIT's choices, where their memory lies), and
  // a comparison between two was as often below 0 as above.
  const setup = await room(join(dir, 'log'));
  const server = await start('steering-server.mjs', [setup.configPath]);
  const sim = hopsFor(setup, server.url);
  await sim.start();
  await loadRun(server.url, { duration: WARMUP });
  const switchAppend = (on) =>
    new Promise((resolve) => {
      server.child.once('message', resolve);
      server.child.send({ cmd: 'log-append', on });
    });
  const runs = { log: { cpu: [], rps: [] }, 'no log': { cpu: [], rps: [] } };
  for (let round = 1; round <= ROUNDS; round++) {
    const line = [];
    // Which goes first alternates from round to round: the machine's other load drifts.
    for (const name of round % 2 === 1 ? ['log', 'no log'] : ['no log', 'log']) {
      await switchAppend(name === 'log');
      // The integrator's run of what the other half left pending, before the measure.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const c0 = cpuOf(server.child.pid);
      const r = await loadRun(server.url, { duration: DURATION });
      const us = ((cpuOf(server.child.pid) - c0) / r.total) * 1e6;
      runs[name].cpu.push(us);
      runs[name].rps.push(r.rps);
      line.push(
        `${name} ${Math.round(r.rps)} req/s, ${us.toFixed(1)} µs CPU/request (${r.bad} non-2xx or errors)`,
      );
    }
    const ratio = runs.log.cpu.at(-1) / runs['no log'].cpu.at(-1);
    console.log(
      `(a) round ${round} (${LOADER}): ${line.join('; ')}; log/no log = ${ratio.toFixed(3)}`,
    );
  }
  const ratios = runs.log.cpu.map((c, i) => c / runs['no log'].cpu[i]);
  const extra = runs.log.cpu.map((c, i) => c - runs['no log'].cpu[i]);
  console.log(
    `(a) the log's cost: median of ${ROUNDS} rounds ${((median(ratios) - 1) * 100).toFixed(1)}% of the server's CPU per decision (${median(extra).toFixed(1)} µs of ${median(runs['no log'].cpu).toFixed(1)}; rounds ${ratios.map((r) => `${((r - 1) * 100).toFixed(1)}%`).join(', ')}; goal ≤ 3%)`,
  );
  await switchAppend(true);
  const stats = await new Promise((resolve) => {
    server.child.once('message', resolve);
    server.child.send({ cmd: 'stats' });
  });
  await sim.stop();
  await stop(server.child);
  console.log(`(a) the logged server's store: ${stats.store.decisions} decisions`);
  const serverUs = median(runs['no log'].cpu);
  // LOG_BENCH_RATE: batches of that many entries instead (to compare runs whose rates differ).
  const rate = Number(
    process.env.LOG_BENCH_RATE ?? Math.max(100, Math.round(median(runs.log.rps))),
  );

  // (a, in parts) The append: group commits of 16 decisions of the served shape (a tail of 135
  // bytes, an evidence set of 36 records), with and without it, alternating.
  const shape = realDecisions(stats.sample);
  const append = { on: [], off: [] };
  // WAL checkpoints inline: each store's own work counts in its commits (background
  // checkpointers' threads would count in both).
  const stores = {
    on: new SqliteStore(join(dir, 'append-on.sqlite'), { checkpoint: 'inline' }),
    off: new SqliteStore(join(dir, 'append-off.sqlite'), {
      checkpoint: 'inline',
      logAppend: false,
    }),
  };
  for (let round = 0; round < 20; round++) {
    for (const k of round % 2 === 0 ? ['on', 'off'] : ['off', 'on']) {
      const batches = Array.from({ length: 200 }, () => shape(16));
      const u0 = process.cpuUsage();
      for (const b of batches) await stores[k].commit({ records: [], decisions: b });
      const u = process.cpuUsage(u0);
      append[k].push((u.user + u.system) / 3200);
    }
  }
  await stores.on.close();
  await stores.off.close();
  const appendUs = median(append.on.map((x, i) => x - append.off[i]));
  // The integration of a second's entries at the rate served, as the integrator runs it.
  // Per entry: the process's CPU, and the main thread's (Linux's schedstat, ns on the CPU).
  // The store checkpoints its WAL on a thread of its own every 250 ms, as a server's does: the
  // integration starts once the decisions' pages are checkpointed (a wait of 300 ms), so that the
  // process's figure counts at most the checkpoint of the log's own pages.
  const ints = [];
  const mains = [];
  for (let round = 0; round < 5; round++) {
    const store = new SqliteStore(join(dir, `integrate-rate-${round}.sqlite`));
    await store.beginLog(signing.origin);
    const memo = {};
    for (let second = 0; second < 4; second++) {
      for (let i = 0; i < rate; i += 16) await store.commit({ records: [], decisions: shape(16) });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const m0 = mainThreadNs();
      const u0 = process.cpuUsage();
      const done = await store.integrateLog((input) => planIntegration(input, signing, 1n, memo), {
        maxEntries: 100_000,
        maxDelayMs: 2000,
      });
      const u = process.cpuUsage(u0);
      const m = mainThreadNs() - m0;
      if (second > 0) {
        ints.push((u.user + u.system) / done.appended);
        mains.push(m / 1000 / done.appended);
      }
    }
    await store.close();
  }
  const mainUs = median(mains);
  const integrationUs = median(ints);
  console.log(
    `(a, in parts) per decision: the append ${appendUs.toFixed(2)} µs (a commit of 16: ${median(append.off).toFixed(1)} µs a decision without, ${median(append.on).toFixed(1)} with), the integration ${integrationUs.toFixed(2)} µs of the process's CPU, ${mainUs.toFixed(2)} µs of its main thread's (batches of ${rate}, one a second, median of ${ints.length}); against ${serverUs.toFixed(1)} µs of server CPU per decision: the append ${((appendUs / serverUs) * 100).toFixed(2)}%, the log ${(((appendUs + integrationUs) / serverUs) * 100).toFixed(2)}% with the process's CPU, ${(((appendUs + mainUs) / serverUs) * 100).toFixed(2)}% with the main thread's (goal ≤ 3%)`,
  );
}

/**
 * Decisions of the shape a server stores, `n` at a time: a served decision's bytes (`sample`),
 * each with its own t and session (§7.1: t at 101, the session after it) and a digest of its
 * own (the store keeps the digest it is given; it cuts the bytes against the evidence set).
 */
function realDecisions(sample) {
  const bytes = new Uint8Array(Buffer.from(sample, 'hex'));
  let t = 0n;
  return (n) =>
    Array.from({ length: n }, () => {
      const own = bytes.slice();
      new DataView(own.buffer).setBigUint64(101, ++t, true);
      own.set(randomBytes(16), 109);
      return { bytes: own, digest: new Uint8Array(randomBytes(32)) };
    });
}

const set = new Uint8Array(97 + 35);
set[96] = 1;
/** `n` compact decisions: a fixed set, tails whose first 8 bytes are t, random digests. */
const decisions = (n, from) =>
  Array.from({ length: n }, (_, i) => {
    const tail = randomBytes(120);
    tail.writeBigUInt64LE(BigInt(from + i), 0);
    return { digest: new Uint8Array(randomBytes(32)), set, tail: new Uint8Array(tail) };
  });
/** `n` entries pending in `store`, in commits of 64 decisions. */
async function fill(store, n) {
  for (let i = 0; i < n; i += 64) await store.commit({ records: [], decisions: decisions(64, i) });
}
/** The pending entries integrated in batches of `batch`: the process's CPU, the database's (`dbCpu`: its CPU seconds so far). */
async function integrate(store, batch, dbCpu, how) {
  const memo = {};
  let entries = 0;
  const u0 = process.cpuUsage();
  const d0 = dbCpu();
  const w0 = performance.now();
  for (;;) {
    const done = await store.integrateLog((input) => planIntegration(input, how, 1n, memo), {
      maxEntries: batch,
      maxDelayMs: 2000,
    });
    if (done === undefined) break;
    entries += done.appended;
    if (!done.more && done.appended === 0) break;
  }
  const u = process.cpuUsage(u0);
  const cpu = (u.user + u.system) / 1e6;
  const db = dbCpu() - d0;
  return { entries, cpu, db, wall: (performance.now() - w0) / 1000 };
}

/**
 * A backend whose SHA-256 is `one` (a message a call), and whose batch hashing calls it for each
 * message, copied after its prefix into one reused buffer.
 */
function perMessage(one) {
  let message = new Uint8Array(65);
  const each = (prefix, data, count, length) => {
    const out = new Uint8Array(count * 32);
    if (message.length !== 1 + length) message = new Uint8Array(1 + length);
    message[0] = prefix;
    for (let i = 0; i < count; i++) {
      message.set(data.subarray(i * length, (i + 1) * length), 1);
      out.set(one(message), i * 32);
    }
    return out;
  };
  return {
    ...nodeBackend,
    sha256: (data) => new Uint8Array(one(data)),
    leafHashes: (entries, count, length) => each(0x00, entries, count, length),
    nodeHashes: (pairs, count) => each(0x01, pairs, count, 64),
  };
}

/** (c): the writer's SHA-256 against the libraries', in the integration on SQLite. */
async function hashingInTheIntegration() {
  await writerHashReady;
  const hasher = await createSHA256();
  const MODULE = "WebAssembly module (the writer's)";
  const ways = {
    [MODULE]: writerBackend,
    'hash-wasm': perMessage((data) => {
      hasher.init();
      hasher.update(data);
      return hasher.digest('binary');
    }),
    'node:crypto (hash)': perMessage((data) => hash('sha256', data, 'buffer')),
  };
  const names = Object.keys(ways);
  const n = Number(process.env.LOG_BENCH_HASHING_ENTRIES ?? 60_000);
  const rounds = Number(process.env.LOG_BENCH_HASHING_ROUNDS ?? 5);
  const us = Object.fromEntries(names.map((k) => [k, []]));
  // Round 0 warms each way up (the JIT), unmeasured.
  for (let round = 0; round <= rounds; round++) {
    for (const [k, name] of (round % 2 === 0 ? names : [...names].reverse()).entries()) {
      const store = new SqliteStore(join(dir, `hashing-${round}-${k}.sqlite`));
      await store.beginLog(signing.origin);
      await fill(store, round === 0 ? 20_000 : n);
      const r = await integrate(store, 20_000, () => 0, { ...signing, backend: ways[name] });
      await store.close();
      if (round > 0) us[name].push((r.cpu / r.entries) * 1e6);
    }
  }
  const libraries = names.filter((k) => k !== MODULE);
  const fastest = libraries.reduce((x, y) => (median(us[y]) < median(us[x]) ? y : x));
  for (const k of names)
    console.log(
      `(c) ${k}: ${median(us[k]).toFixed(2)} µs of the process's CPU an entry (median of ${rounds} rounds of ${n} entries, batches of 20 000; rounds ${us[k].map((x) => x.toFixed(2)).join(', ')})`,
    );
  const ratios = us[MODULE].map((x, i) => x / us[fastest][i]);
  console.log(
    `(c) the module against ${fastest}, the fastest library: ${median(ratios).toFixed(3)} × its CPU an entry, ${((1 - median(ratios)) * 100).toFixed(1)}% of the integration's CPU saved (rounds ${ratios.map((r) => r.toFixed(3)).join(', ')}; kept while ≥ 20%)`,
  );
}

/** Rounds of the integration on PostgreSQL, before schema 6 and now, alternating. */
const PG_ROUNDS = Number(process.env.LOG_BENCH_PG_ROUNDS ?? 3);
/** Their batch sizes: the integrator's (100 000, the goal's), and a fifth of it. */
const PG_BATCHES = (process.env.LOG_BENCH_PG_BATCHES ?? '100000,20000').split(',').map(Number);
/** The batch sizes on SQLite (`LOG_BENCH_SQLITE_BATCHES=` none). */
const SQLITE_BATCHES = (process.env.LOG_BENCH_SQLITE_BATCHES ?? '1000,20000,100000')
  .split(',')
  .filter((b) => b !== '')
  .map(Number);
/** The goal: one integrator keeps up with twice 25 M sessions at TTL 300 s. */
const GOAL = 170_000;

const spread = (xs) => `${Math.round(Math.min(...xs))}–${Math.round(Math.max(...xs))}`;

/**
 * (b) on PostgreSQL: the integration as it is and as the release before schema 6 made it
 * (`pg-before.mjs`), rounds alternating, each on a cluster of its own (so that one's background
 * work, its autovacuum and checkpoints, is not counted in the other's), a fresh database a round
 * filled alike. The database's CPU is its cluster's whole (every process, those that exited
 * too). Entries a second of the process's and the database's CPU together: the goal's measure,
 * the instance and the database taking turns; and the bound with the two halves overlapped on
 * cores of their own (the entries over the larger of the two).
 */
/** Their medians of the rates counting both, by batch. */
async function integrationOnPostgres(fill, integrate) {
  const clusters = { before: await startPostgres(), now: await startPostgres() };
  const admin = {};
  try {
    for (const [kind, cluster] of Object.entries(clusters)) {
      admin[kind] = new pg.Client({ connectionString: cluster.url });
      await admin[kind].connect();
    }
    const results = {};
    let n = 0;
    // Round 0 warms the process (its code compiled by V8 for each kind and batch) and is not
    // counted: the first integration of a kind in a process costs it more CPU than the next.
    for (let round = 0; round <= PG_ROUNDS; round++) {
      for (const batch of PG_BATCHES) {
        for (const kind of round % 2 === 1 ? ['before', 'now'] : ['now', 'before']) {
          const cluster = clusters[kind];
          const name = `log_${kind}_${++n}`;
          const store = await PgStore.open(await cluster.createDatabase(name));
          if (kind === 'before') {
            await undoSchema6(store);
            installBefore(store);
          }
          await store.beginLog(signing.origin);
          await fill(store, round === 0 ? Math.min(ENTRIES, 2 * batch) : ENTRIES);
          // The decisions' keys the fill left pending, merged first: a cost of the decisions
          // (the instances bench counts it in each decision's), not of the log.
          if (kind === 'now') await store.query(MERGE_KEYS, []);
          const r = await integrate(store, batch, () => clusterCpuOf(cluster.pid), signing);
          if (round === 0) {
            await store.close();
            await admin[kind].query(`DROP DATABASE ${name}`);
            continue;
          }
          const key = `${kind}/${batch}`;
          results[key] = [...(results[key] ?? []), r];
          console.log(
            `(b) PostgreSQL, round ${round}, ${kind === 'now' ? 'now' : 'before schema 6'}, batches of ${batch}: ${r.entries} entries; µs an entry: ${((r.cpu / r.entries) * 1e6).toFixed(2)} of the process, ${((r.db / r.entries) * 1e6).toFixed(2)} of the database; ${Math.round(r.entries / (r.cpu + r.db))} entries a second counting both, ${Math.round(r.entries / Math.max(r.cpu, r.db))} overlapped, ${Math.round(r.entries / r.wall)} wall (load average ${load()})`,
          );
          if (round === 1 && batch === PG_BATCHES[0] && kind === 'now') {
            const { rows } = await store.query(
              `SELECT sum(pg_total_relation_size(c.oid))::text AS b FROM pg_class c
               WHERE c.relkind = 'r'
                 AND c.relname IN ('log_bundles', 'log_keys', 'log_keys_more', 'log_tiles', 'log_checkpoints')`,
              [],
            );
            console.log(
              `(b) PostgreSQL: the log's tables and indexes ${(Number(rows[0].b) / ENTRIES).toFixed(1)} bytes per entry`,
            );
            keep(
              'entryBytes',
              Number(rows[0].b) / ENTRIES,
              "bytes a log entry in PostgreSQL, this run's log bench",
            );
          }
          await store.close();
          await admin[kind].query(`DROP DATABASE ${name}`);
        }
      }
    }
    const medians = [];
    for (const batch of PG_BATCHES) {
      const rate = (kind, f) => results[`${kind}/${batch}`].map(f);
      const both = (r) => r.entries / (r.cpu + r.db);
      const [now, before] = [rate('now', both), rate('before', both)];
      const us = (kind, k) => median(rate(kind, (r) => (r[k] / r.entries) * 1e6)).toFixed(2);
      console.log(
        `(b) PostgreSQL, batches of ${batch}, median of ${PG_ROUNDS} rounds: ${Math.round(median(now))} entries a second counting the process's and the database's CPU (rounds ${spread(now)}), before schema 6 ${Math.round(median(before))} (${spread(before)}): now/before ${(median(now) / median(before)).toFixed(2)}; µs an entry, process ${us('now', 'cpu')} (before ${us('before', 'cpu')}), database ${us('now', 'db')} (before ${us('before', 'db')}); overlapped ${Math.round(median(rate('now', (r) => r.entries / Math.max(r.cpu, r.db))))}, wall ${Math.round(median(rate('now', (r) => r.entries / r.wall)))}${batch === 100_000 ? `; goal ≥ ${GOAL} counting both: ${median(now) >= GOAL ? 'met' : 'not met'}` : ''}`,
      );
      medians.push({ batch, rate: median(now) });
    }
    return medians;
  } finally {
    for (const c of Object.values(admin)) await c.end().catch(() => {});
    for (const c of Object.values(clusters)) await c.stop();
  }
}

/** The decisions' key index's pending lists merged (schema 6: each partition's GIN index). */
const MERGE_KEYS = `SELECT gin_clean_pending_list(i.inhrelid::regclass) FROM pg_inherits i
                    WHERE i.inhparent = 'decisions_key'::regclass`;

const dir = mkdtempSync(join(storeDir(), 'wai-bench-log-'));
// `LOG_BENCH_ONLY=integration`: parts (b) and (c); `cost`: part (a) alone; `hashing`: (c) alone.
const costs = process.env.LOG_BENCH_ONLY !== 'integration';
try {
  if (process.env.LOG_BENCH_ONLY === 'hashing') {
    await hashingInTheIntegration();
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  }
  if (costs) await costOfTheLog();
  if (process.env.LOG_BENCH_ONLY === 'cost') {
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  }

  // (b) Integration, on SQLite then PostgreSQL, with the writer's SHA-256 as a server has it
  // (WebAssembly, instantiated asynchronously: the store's calls alone never let it finish).
  await writerHashReady;
  const report = (where, batch, r) =>
    console.log(
      `(b) ${where}, batches of ${batch}: ${r.entries} entries, ${Math.round(r.entries / r.cpu)} entries/s of the process's CPU${r.db > 0 ? `, ${Math.round(r.entries / (r.cpu + r.db))} with the database's` : ''} (${Math.round(r.entries / r.wall)}/s wall; goal ≥ 20 000/s on one core)`,
    );
  for (const batch of SQLITE_BATCHES) {
    const path = join(dir, `integrate-${batch}.sqlite`);
    const store = new SqliteStore(path);
    await store.beginLog(signing.origin);
    await fill(store, ENTRIES);
    report('SQLite', batch, await integrate(store, batch, () => 0, signing));
    const { size } = await store.logHead();
    await store.close();
    // The log's tables and indexes, page by page (SQLite's dbstat).
    const db = new Database(path, { readonly: true });
    let bytes = Number.NaN;
    try {
      bytes = db
        .prepare(
          `SELECT sum(pgsize) FROM dbstat WHERE name IN
             ('log_bundles', 'log_keys', 'log_keys_more', 'log_tiles', 'log_checkpoints')`,
        )
        .pluck()
        .get();
    } catch {}
    db.close();
    console.log(
      `(b) SQLite: ${size} entries; the log's tables and indexes ${(bytes / Number(size)).toFixed(1)} bytes per entry`,
    );
  }
  const pgRates = await integrationOnPostgres(fill, integrate);
  const best = pgRates.reduce((x, y) => (y.rate > x.rate ? y : x));
  keep(
    'integration',
    best.rate,
    `the integration on PostgreSQL with its CPU, this run's log bench (batches of ${best.batch})`,
  );
  goal(
    "the log's integration on PostgreSQL, the database's CPU counted",
    `${Math.round(best.rate)} entries a second, median of ${PG_ROUNDS} rounds (batches of ${best.batch}; ${pgRates.map((r) => `${Math.round(r.rate)} in batches of ${r.batch}`).join(', ')})`,
    '≥ 170 000 (twice 25 M sessions at TTL 300 s)',
    best.rate >= 170_000,
  );
  await hashingInTheIntegration();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
