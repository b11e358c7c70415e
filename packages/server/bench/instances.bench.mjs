// `pnpm bench:server`, its second part: the store and the instances.
//
// (i)   one instance on SQLite against one on PostgreSQL (a throwaway cluster started here):
//       requests per second and CPU per request (the server's; and the database's, whose work
//       SQLite does inside the server), every request from a distinct session; rounds
//       alternating, each figure the median of its rounds;
// (ii)  `--workers 2` against one worker, on SQLite and on PostgreSQL, the load from wrk
//       (Debian's; autocannon when it is missing): requests per second and the CPU per request
//       of every process of the server (the primary and its workers), and of PostgreSQL's;
// (iii) capacity across instances: two instances on PostgreSQL with cdn-b at a capacity of 100,
//       both loaded at once with new sessions that report nothing (each placed in cdn-b, the
//       pathway ranked first, while it may be); then every decision of both is read back from
//       the store and replayed as the audit does (`docs/audit.md`, the load replay): the most
//       sessions cdn-b held at once, and how long cdn-b was refused while it had free slots.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { median } from '@wai-steering/bench';
import { readDecision } from '@wai-steering/wire';
import { PgStore } from '../dist/index.js';
import { setupDemo, startPostgres } from '../dist/testkit.js';
import { fixed, goal, keep } from './goals.mjs';
import {
  CONNECTIONS,
  clusterCpuByKind,
  clusterCpuOf,
  cpuSum,
  DURATION,
  freePort,
  hopsFor,
  LOADER,
  load,
  loadRun,
  start,
  stop,
  storeDir,
  WARMUP,
} from './load.mjs';

const HEARTBEAT_MS = 250;
/** PostgreSQL's CPU per decision of one instance before the event-scale work (2026-12-03, 06:38 UTC). */
const PG_US_BEFORE = 40;
/** The connections of part (ii)'s load, each count in every round; the first is the goal's. */
const WORKER_CONNECTIONS = (process.env.BENCH_WORKER_CONNECTIONS ?? '128,32')
  .split(',')
  .map(Number);
/** `BENCH_PARTS=iii` (or `i,ii`) runs those parts alone. */
const PARTS = (process.env.BENCH_PARTS ?? 'i,ii,iii').split(',');

/** A demo room in a fresh directory, its config rewritten with `store` and a free port. */
async function room(dir, store, extra = {}) {
  // One load generator, one address: no per-client budget (a deployment keeps its budgets).
  const setup = setupDemo(dir, {
    port: 8080,
    periodMs: 10_000,
    windowPeriods: 6,
    budgets: false,
    ...extra,
  });
  const config = JSON.parse(readFileSync(setup.configPath, 'utf8'));
  const path = join(dir, `config-${Math.random().toString(36).slice(2)}.json`);
  const port = await freePort();
  writeFileSync(
    path,
    JSON.stringify({
      ...config,
      listen: { host: '127.0.0.1', port },
      store: store.path === undefined ? store : { ...store, create: true },
      instances: { heartbeat: `${HEARTBEAT_MS}ms`, drop_after: '1s' },
    }),
  );
  return { setup, path };
}

/** A measured run: req/s, and CPU µs per request of the server's and the database's processes. */
async function run(server, options, dbPid) {
  const s0 = cpuSum(server.pids);
  // The cluster's whole CPU: the backends and background processes that exited meanwhile too
  // (an autovacuum worker), counted in the postmaster's reaped children's times.
  const d0 = dbPid === undefined ? 0 : clusterCpuOf(dbPid);
  const k0 = dbPid === undefined ? undefined : clusterCpuByKind(dbPid);
  const r = await loadRun(server.url, options);
  const n = r.total;
  // The database's CPU a decision by kind of process: where it went.
  let dbKinds;
  if (k0 !== undefined) {
    const k1 = clusterCpuByKind(dbPid);
    dbKinds = Object.keys(k1)
      .map((k) => [k, ((k1[k] - (k0[k] ?? 0)) / n) * 1e6])
      .filter(([, us]) => us >= 0.05)
      .map(([k, us]) => `${k} ${us.toFixed(1)}`)
      .join(', ');
  }
  return {
    ...r,
    serverUs: ((cpuSum(server.pids) - s0) / n) * 1e6,
    dbUs: dbPid === undefined ? 0 : ((clusterCpuOf(dbPid) - d0) / n) * 1e6,
    dbKinds,
    load: load(),
  };
}

/** The transactions committed in the database of `url`, and the cluster's WAL position (bytes). */
async function pgWork(url) {
  const store = await PgStore.open(url);
  try {
    const { rows } = await store.query(
      `SELECT pg_stat_force_next_flush(), (SELECT xact_commit FROM pg_stat_database
         WHERE datname = current_database()) AS commits,
         pg_current_wal_lsn() - '0/0'::pg_lsn AS wal`,
      [],
    );
    return { commits: Number(rows[0].commits), wal: Number(rows[0].wal) };
  } finally {
    await store.close();
  }
}

const line = (r) =>
  `${Math.round(r.rps)} req/s (p99 ${r.p99}, ${r.bad} non-2xx or errors; CPU per request: server ${r.serverUs.toFixed(0)} µs${r.dbUs > 0 ? `, PostgreSQL ${r.dbUs.toFixed(0)} µs` : ''}; load average ${r.load})`;

const dir = mkdtempSync(join(storeDir(), 'wai-bench-instances-'));
const cluster = await startPostgres();
try {
  // (i) SQLite against PostgreSQL, one instance each.
  if (PARTS.includes('i')) await partOne();
  if (PARTS.includes('ii')) await partTwo();
  if (PARTS.includes('iii')) await partThree();
} finally {
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
}

async function partOne() {
  const sq = await room(join(dir, 'sqlite'), { path: 'steering.sqlite' });
  const pgUrl = await cluster.createDatabase('bench_one');
  const pq = await room(join(dir, 'pg'), { url: pgUrl });
  // Both started and warmed, then rounds alternating (BENCH_INSTANCE_ROUNDS, 3 by default): a
  // figure is the median of its rounds, not one round that a pause of the machine or the
  // database's autovacuum can move by a third.
  const rounds = Number(process.env.BENCH_INSTANCE_ROUNDS ?? 3);
  const up = {};
  for (const [name, r] of [
    ['SQLite', sq],
    ['PostgreSQL', pq],
  ]) {
    const server = await start('instance-server.mjs', [r.path, '1']);
    const sim = hopsFor(r.setup, server.url);
    await sim.start();
    await loadRun(server.url, { duration: WARMUP });
    up[name] = { server, sim };
  }
  const all = { SQLite: [], PostgreSQL: [] };
  for (let round = 1; round <= rounds; round++) {
    for (const [name, db] of [
      ['SQLite', undefined],
      ['PostgreSQL', cluster.pid],
    ]) {
      const r = await run(up[name].server, { duration: DURATION }, db);
      all[name].push(r);
      console.log(
        `(i) round ${round}, one instance on ${name} (${LOADER}): ${line(r)}${r.dbKinds === undefined ? '' : `; PostgreSQL's µs a decision by process: ${r.dbKinds}`}`,
      );
    }
  }
  for (const { server, sim } of Object.values(up)) {
    await sim.stop();
    await stop(server);
  }
  /** The rounds' medians of each figure. */
  const results = {};
  for (const [name, rs] of Object.entries(all)) {
    results[name] = {
      ...rs[0],
      rps: median(rs.map((r) => r.rps)),
      serverUs: median(rs.map((r) => r.serverUs)),
      dbUs: median(rs.map((r) => r.dbUs)),
      p99: rs.map((r) => r.p99).join(', '),
      bad: rs.reduce((n, r) => n + r.bad, 0),
      load: rs.map((r) => r.load).join(', '),
    };
    console.log(
      `(i) one instance on ${name}, median of ${rounds} rounds: ${line(results[name])}${name === 'PostgreSQL' ? `; PostgreSQL's µs a decision in the rounds ${rs.map((r) => r.dbUs.toFixed(1)).join(', ')}` : ''}`,
    );
  }
  // Bytes per decision in PostgreSQL: the decisions' partitions with their indexes and TOAST.
  const store = await PgStore.open(pgUrl);
  const { rows } = await store.query(
    `SELECT (SELECT sum(pg_total_relation_size(inhrelid)) FROM pg_inherits
              WHERE inhparent = 'decisions'::regclass) AS bytes,
            (SELECT count(*) FROM decisions) AS n`,
    [],
  );
  await store.close();
  const perDecision = Number(rows[0].bytes) / Number(rows[0].n);
  console.log(
    `(i) PostgreSQL: ${rows[0].n} decisions, ${perDecision.toFixed(0)} bytes per decision (the partitions, their indexes and TOAST)`,
  );
  const s = results.SQLite;
  const p = results.PostgreSQL;
  const at = `this run's part (i), ${LOADER}`;
  keep('serverUs', p.serverUs, `one instance on PostgreSQL, ${at}`);
  keep('dbUs', p.dbUs, `PostgreSQL's CPU a decision, ${at}`);
  keep('decisionBytes', perDecision, `bytes a decision in PostgreSQL, ${at}`);
  goal(
    "PostgreSQL's CPU per decision, one instance",
    `${fixed(p.dbUs, 1)} µs`,
    `≤ ${fixed(PG_US_BEFORE * 0.7, 1)} µs (30 % under the ${PG_US_BEFORE} µs of 2026-12-03)`,
    p.dbUs <= PG_US_BEFORE * 0.7,
  );
  console.log(
    `(i) PostgreSQL/SQLite = ${(p.rps / s.rps).toFixed(3)} in requests per second; server CPU per request ${(p.serverUs / s.serverUs).toFixed(3)}×, server and database ${((p.serverUs + p.dbUs) / s.serverUs).toFixed(3)}×`,
  );
}

// (ii) --workers 2 against 1, on SQLite and on PostgreSQL, alternating, the load from wrk when
// installed, from 128 connections and from 32 (`BENCH_WORKER_CONNECTIONS`, the first the goal's):
// a closed loop's connections are shared among the workers, so that from 32 each of two workers
// commits batches of half the size one worker does, and the comparison mixes the cores with the
// group commit's batch size; from 128 both are past that. On SQLite a third server alternates
// with them: two workers each on a file of its own (`instance-server.mjs`, `own-files`), not a
// deployment but the measure of what the workers' sharing of one file costs (SQLite's page cache
// is read again after another process's commit, and a commit may find the write lock held).
async function partTwo() {
  // `BENCH_WORKER_STORES=PostgreSQL` (or SQLite) runs that store alone.
  const stores = (process.env.BENCH_WORKER_STORES ?? 'SQLite,PostgreSQL').split(',');
  for (const store of stores) {
    const kinds = store === 'SQLite' ? ['1', '2', '2-own'] : ['1', '2'];
    const byKind = Object.fromEntries(
      WORKER_CONNECTIONS.flatMap((c) => kinds.map((k) => [`${c}/${k}`, []])),
    );
    const rounds = Number(process.env.BENCH_WORKER_ROUNDS ?? 3);
    const servers = {};
    const label = (kind) => (kind === '2-own' ? '--workers 2, a file each,' : `--workers ${kind}`);
    // On PostgreSQL each server has a cluster of its own: its autovacuum, checkpoints and
    // background writer are counted in its rounds, not in the other server's.
    const clusters = {};
    for (const kind of kinds) {
      const workers = Number(kind[0]);
      let where = { path: 'steering.sqlite' };
      if (store === 'PostgreSQL') {
        clusters[kind] = await startPostgres();
        where = { url: await clusters[kind].createDatabase(`bench_workers_${workers}`) };
        clusters[kind].url = where.url;
      }
      const r = await room(join(dir, `workers-${store}-${kind}`), where);
      // A fresh file is created by one process: the workers then open it.
      if (workers > 1 && store === 'SQLite')
        await stop(await start('instance-server.mjs', [r.path, '1']));
      const server = await start('instance-server.mjs', [
        r.path,
        String(workers),
        ...(kind === '2-own' ? ['own-files'] : []),
      ]);
      const sim = hopsFor(r.setup, server.url);
      await sim.start();
      await loadRun(server.url, { duration: WARMUP });
      servers[kind] = { server, sim };
    }
    for (let round = 0; round < rounds; round++) {
      for (const connections of WORKER_CONNECTIONS) {
        for (const kind of kinds) {
          const c = clusters[kind];
          const w0 = c === undefined ? undefined : await pgWork(c.url);
          const out = await run(servers[kind].server, { duration: DURATION, connections }, c?.pid);
          byKind[`${connections}/${kind}`].push(out);
          let pg = '';
          if (c !== undefined) {
            const w1 = await pgWork(c.url);
            const commits = w1.commits - w0.commits;
            pg = `; PostgreSQL's µs a decision by process: ${out.dbKinds}; ${commits} transactions (${(out.total / commits).toFixed(1)} decisions each), ${((w1.wal - w0.wal) / out.total).toFixed(0)} bytes of WAL a decision`;
          }
          console.log(
            `(ii) ${label(kind)} on ${store} (${LOADER}, ${connections} connections): ${line(out)}${pg}`,
          );
        }
      }
    }
    for (const kind of kinds) {
      await servers[kind].sim.stop();
      await stop(servers[kind].server);
      await clusters[kind]?.stop();
    }
    for (const c of WORKER_CONNECTIONS) {
      const rps = (k) => Math.max(...byKind[`${c}/${k}`].map((r) => r.rps));
      const cpu = (k) => Math.min(...byKind[`${c}/${k}`].map((r) => r.serverUs));
      if (c === WORKER_CONNECTIONS[0] && store === 'SQLite') {
        goal(
          `--workers 2 / --workers 1 in server CPU per request, SQLite, ${c} connections`,
          `${fixed(cpu('2') / cpu('1'))} × (least of ${rounds} rounds each; ${fixed(rps('2') / rps('1'))} in requests per second)`,
          '≤ 1.1',
          cpu('2') / cpu('1') <= 1.1,
        );
      }
      if (c === WORKER_CONNECTIONS[0] && store === 'PostgreSQL') {
        const db = (k) => Math.min(...byKind[`${c}/${k}`].map((r) => r.dbUs));
        goal(
          `PostgreSQL's CPU per decision, --workers 2 / --workers 1, ${c} connections`,
          `${fixed(db('2') / db('1'))} × (${fixed(db('2'), 1)} and ${fixed(db('1'), 1)} µs, least of ${rounds} rounds each)`,
          '≤ 1.2',
          db('2') / db('1') <= 1.2,
        );
      }
      console.log(
        `(ii) on ${store}, ${c} connections: --workers 2 / --workers 1 = ${(rps('2') / rps('1')).toFixed(3)} in requests per second (best rounds; goal ≥ 1.4), ${(cpu('2') / cpu('1')).toFixed(3)}× the server's CPU per request (least rounds; goal ≤ 1.1)`,
      );
      if (kinds.includes('2-own')) {
        console.log(
          `(ii) on ${store}, ${c} connections, two workers each on a file of its own (what sharing one file costs): ${(rps('2-own') / rps('1')).toFixed(3)} in requests per second, ${(cpu('2-own') / cpu('1')).toFixed(3)}× the CPU per request of one worker`,
        );
      }
    }
  }
}

// (iii) Capacity across instances: two instances on PostgreSQL, cdn-b at a capacity of 100.
async function partThree() {
  const CAPACITY = 100;
  const capUrl = await cluster.createDatabase('bench_capacity');
  const base = await room(join(dir, 'capacity'), { url: capUrl }, { capacity: CAPACITY });
  const config = JSON.parse(readFileSync(base.path, 'utf8'));
  const secondPath = join(dir, 'capacity', 'config-second.json');
  writeFileSync(
    secondPath,
    JSON.stringify({ ...config, listen: { host: '127.0.0.1', port: await freePort() } }),
  );
  const x = await start('instance-server.mjs', [base.path, '1']);
  const y = await start('instance-server.mjs', [secondPath, '1']);
  const sim = hopsFor(base.setup, x.url);
  await sim.start();
  const seconds = 5;
  const [rx, ry] = await Promise.all(
    [x, y].map((s) =>
      loadRun(s.url, { duration: seconds, connections: CONNECTIONS / 2, query: '' }),
    ),
  );
  await sim.stop();
  await stop(x);
  await stop(y);
  // Every decision of both, replayed (docs/audit.md): a session counts in the first pathway of
  // its latest decision until ⌊t / 10^6⌋ + ttl + grace.
  const store = await PgStore.open(capUrl);
  const decisions = [];
  // The cursor is opaque (the store's `DecisionCursor`): null, then each page's `next`.
  for (let after = null; ; ) {
    const page = await store.listDecisions(0n, 1n << 62n, after, 5000);
    for (const d of page.decisions) {
      const r = readDecision(d.bytes);
      if (!r.ok) continue;
      const v = r.value;
      decisions.push({
        t: v.t,
        session: Buffer.from(v.session).toString('hex'),
        first: v.priority[0],
        ttl: v.ttl,
        stated: v.pathways[1].load,
        // §6.1: bit 2 of limits, the capacity limit held.
        refused: (v.pathways[1].limits & 4) === 0,
      });
    }
    if (page.next === null) break;
    after = page.next;
  }
  await store.close();
  const grace = 10n;
  decisions.sort((a, b) => (a.t < b.t ? -1 : a.t > b.t ? 1 : 0));
  const placed = new Map();
  let inB = 0;
  let most = 0;
  // Stretches of time in which cdn-b was refused (§6.1 found it at its capacity) while it held
  // fewer sessions than its capacity.
  let refusedFree = 0;
  let stretch;
  let longest = 0n;
  let maxDeviation = 0;
  const ends = [];
  for (const d of decisions) {
    const s = d.t / 1_000_000n;
    // Sessions whose end has come leave cdn-b (none in a 5 s run: TTL + grace is 20 s).
    for (let i = ends.length - 1; i >= 0; i--) {
      if (ends[i] <= s) {
        ends.splice(i, 1);
        inB--;
      }
    }
    const prev = placed.get(d.session);
    if (d.refused && inB < CAPACITY) {
      refusedFree++;
      stretch ??= d.t;
      if (d.t - stretch > longest) longest = d.t - stretch;
    } else stretch = undefined;
    maxDeviation = Math.max(maxDeviation, Math.abs(d.stated - inB));
    if (prev?.first === 1) inB--;
    if (d.first === 1) {
      inB++;
      ends.push(s + BigInt(d.ttl) + grace);
    }
    placed.set(d.session, { first: d.first });
    most = Math.max(most, inB);
    if (process.env.BENCH_DEBUG && (d.refused || d.first === 1))
      console.log(
        String((d.t - decisions[0].t) / 1000n).padStart(6),
        d.refused ? 'R' : 'B',
        inB,
        d.stated,
      );
  }
  console.log(
    `(iii) two instances on PostgreSQL, cdn-b capacity ${CAPACITY}, ${seconds} s of new sessions at ${Math.round(rx.rps)} + ${Math.round(ry.rps)} req/s (${LOADER}), heartbeat ${HEARTBEAT_MS} ms, leases of slots: ${decisions.length} decisions replayed; cdn-b held at most ${most} = capacity ${most >= CAPACITY ? '+' : '−'} ${Math.abs(most - CAPACITY)} (overshoot ${((Math.max(0, most - CAPACITY) / CAPACITY) * 100).toFixed(1)}%; goal ≤ 5%); refused while it had free slots: ${refusedFree} decisions, the longest stretch ${(Number(longest) / 1000).toFixed(1)} ms (goal ≤ one heartbeat, ${HEARTBEAT_MS} ms); stated load of cdn-b against the replay: off by ${maxDeviation} at most; load average ${load()}`,
  );
}
