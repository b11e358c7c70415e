// `pnpm bench:server`, its second part: the store and the instances.
//
// (i)   one instance on SQLite against one on PostgreSQL (a throwaway cluster started here):
//       requests per second and CPU per request (the server's; and the database's, whose work
//       SQLite does inside the server), every request from a distinct session;
// (ii)  `--workers 2` against one worker on SQLite, the load from wrk (Debian's; autocannon
//       when it is missing), CPU of every process of the server;
// (iii) the capacity overshoot: two instances on PostgreSQL with cdn-b at a capacity of 100,
//       both loaded with new sessions, then the loads a decision states once quiet.
import { fork, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { monotonicClock } from '../dist/index.js';
import { HopSimulator, setupDemo, startPostgres } from '../dist/testkit.js';

const here = dirname(fileURLToPath(import.meta.url));
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const HEARTBEAT_MS = 250;

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function start(config, workers = 1) {
  const child = fork(join(here, 'instance-server.mjs'), [config, String(workers)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`instance-server exited (${code})`)));
    child.once('message', (m) =>
      m?.ready ? resolve({ child, url: m.url, pids: [child.pid, ...m.pids] }) : reject(m),
    );
  });
}

function stop(server) {
  return new Promise((resolve) => {
    server.child.removeAllListeners('exit');
    server.child.once('exit', resolve);
    server.child.send({ cmd: 'stop' });
  });
}

/** CPU seconds (user + system) of a process, from /proc (Linux). */
function cpuOf(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** The processes whose parent is `pid` (the PostgreSQL backends of a postmaster). */
function childrenOf(pid) {
  const out = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const fields = readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1].split(' ');
      if (Number(fields[1]) === pid) out.push(Number(name));
    } catch {}
  }
  return out;
}

/** CPU of a set of processes (and, for a postmaster, its backends, read again each time). */
const cpuSum = (pids) => pids.reduce((s, p) => s + cpuOf(p), 0);

function cannon(options) {
  return new Promise((resolve, reject) => {
    autocannon({ connections: CONNECTIONS, pipelining: 1, ...options }, (err, result) =>
      err ? reject(err) : resolve(result),
    );
  });
}

let counter = 0;
const distinct = (url, query = '&_HLS_pathway=%22cdn-a%22&_HLS_throughput=5000000') => ({
  url,
  requests: [
    {
      method: 'GET',
      setupRequest: (req) => {
        const session = (counter++).toString(16).padStart(32, '0');
        req.path = `/steer/reload?wai_session=${session}${query}`;
        return req;
      },
    },
  ],
});

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

function hops(setup, url) {
  return new HopSimulator({
    policy: setup.policy,
    roomId: setup.roomId,
    hops: setup.hops,
    base: url,
    clock: monotonicClock(),
    history: 7,
  });
}

/** One measured run: req/s, and CPU µs per request of the server's and the database's processes. */
async function run(server, options, dbPid) {
  const s0 = cpuSum(server.pids);
  const d0 = dbPid === undefined ? 0 : cpuSum([dbPid, ...childrenOf(dbPid)]);
  const r = await cannon(options);
  const n = r.requests.total;
  return {
    rps: r.requests.average,
    p99: `${r.latency.p99} ms`,
    bad: r.non2xx + r.errors,
    serverUs: ((cpuSum(server.pids) - s0) / n) * 1e6,
    dbUs: dbPid === undefined ? 0 : ((cpuSum([dbPid, ...childrenOf(dbPid)]) - d0) / n) * 1e6,
  };
}

const line = (r) =>
  `${Math.round(r.rps)} req/s (p99 ${r.p99}, ${r.bad} non-2xx or errors; CPU per request: server ${r.serverUs.toFixed(0)} µs${r.dbUs > 0 ? `, PostgreSQL ${r.dbUs.toFixed(0)} µs` : ''})`;

const dir = mkdtempSync(join(tmpdir(), 'wai-bench-instances-'));
const cluster = await startPostgres();
try {
  // (i) SQLite against PostgreSQL, one instance each.
  const sq = await room(join(dir, 'sqlite'), { path: 'steering.sqlite' });
  const pgUrl = await cluster.createDatabase('bench_one');
  const pq = await room(join(dir, 'pg'), { url: pgUrl });
  const results = {};
  for (const [name, r, db] of [
    ['SQLite', sq, undefined],
    ['PostgreSQL', pq, cluster.pid],
  ]) {
    const server = await start(r.path);
    const sim = hops(r.setup, server.url);
    await sim.start();
    await cannon({ ...distinct(server.url), duration: WARMUP });
    results[name] = await run(server, { ...distinct(server.url), duration: DURATION }, db);
    await sim.stop();
    await stop(server);
    console.log(`(i) one instance on ${name}: ${line(results[name])}`);
  }
  const s = results.SQLite;
  const p = results.PostgreSQL;
  console.log(
    `(i) PostgreSQL/SQLite = ${(p.rps / s.rps).toFixed(3)} in requests per second; server CPU per request ${(p.serverUs / s.serverUs).toFixed(3)}×, server and database ${((p.serverUs + p.dbUs) / s.serverUs).toFixed(3)}×`,
  );

  // (ii) --workers 2 against 1, on SQLite, the load from wrk when installed.
  const wrk = ['/usr/bin/wrk', '/usr/local/bin/wrk'].find((w) => existsSync(w));
  const byWorkers = {};
  for (const workers of [1, 2]) {
    const r = await room(join(dir, `workers-${workers}`), { path: 'steering.sqlite' });
    const server = await start(r.path, workers);
    const sim = hops(r.setup, server.url);
    await sim.start();
    let out;
    if (wrk !== undefined) {
      const args = ['-t2', `-c${CONNECTIONS}`, '-s', join(here, 'sessions.lua'), server.url];
      spawnSync(wrk, [...args.slice(0, 2), `-d${WARMUP}s`, ...args.slice(2)]);
      const c0 = cpuSum(server.pids);
      const res = spawnSync(
        wrk,
        [...args.slice(0, 2), `-d${DURATION}s`, '--latency', ...args.slice(2)],
        {
          encoding: 'utf8',
        },
      );
      const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(res.stdout)?.[1] ?? Number.NaN);
      const total = Number(/(\d+) requests in/.exec(res.stdout)?.[1] ?? Number.NaN);
      const p99 = /^\s+99%\s+(\S+)/m.exec(res.stdout)?.[1] ?? '?';
      const bad = Number(/Non-2xx or 3xx responses: (\d+)/.exec(res.stdout)?.[1] ?? 0);
      out = { rps, p99, bad, serverUs: ((cpuSum(server.pids) - c0) / total) * 1e6, dbUs: 0 };
    } else {
      await cannon({ ...distinct(server.url), duration: WARMUP });
      out = await run(server, { ...distinct(server.url), duration: DURATION });
    }
    byWorkers[workers] = out;
    await sim.stop();
    await stop(server);
    console.log(
      `(ii) --workers ${workers} on SQLite (${wrk === undefined ? 'autocannon' : 'wrk -t2'}, ${CONNECTIONS} connections): ${line(out)}`,
    );
  }
  console.log(
    `(ii) --workers 2 / --workers 1 = ${(byWorkers[2].rps / byWorkers[1].rps).toFixed(3)} in requests per second (goal ≥ 1.4)`,
  );

  // (iii) Capacity overshoot: two instances on PostgreSQL, cdn-b at a capacity of 100.
  const CAPACITY = 100;
  const capUrl = await cluster.createDatabase('bench_capacity');
  const base = await room(join(dir, 'capacity'), { url: capUrl }, { capacity: CAPACITY });
  const config = JSON.parse(readFileSync(base.path, 'utf8'));
  const secondPath = join(dir, 'capacity', 'config-second.json');
  writeFileSync(
    secondPath,
    JSON.stringify({ ...config, listen: { host: '127.0.0.1', port: await freePort() } }),
  );
  const x = await start(base.path);
  const y = await start(secondPath);
  const sim = hops(base.setup, x.url);
  await sim.start();
  const seconds = 5;
  const [rx, ry] = await Promise.all(
    [x, y].map((s) =>
      cannon({ ...distinct(s.url, ''), duration: seconds, connections: CONNECTIONS / 2 }),
    ),
  );
  await new Promise((r) => setTimeout(r, 6 * HEARTBEAT_MS));
  const probe = await (await fetch(`${y.url}/steer/reload?wai_session=${'f'.repeat(32)}`)).json();
  const digest = probe['science.transaction.wai-decision'].slice(-64);
  const bytes = new Uint8Array(await (await fetch(`${y.url}/decisions/${digest}`)).arrayBuffer());
  // §7.1: the pathways from offset 149; each: load (u32) first; cdn-b is the second.
  const loads = [];
  let pos = 149;
  for (let i = 0; i < bytes[148]; i++) {
    loads.push(new DataView(bytes.buffer).getUint32(pos, true));
    pos += 40 + 32 * bytes[pos + 39];
  }
  await sim.stop();
  await stop(x);
  await stop(y);
  const rate = (rx.requests.average + ry.requests.average) / 2;
  const bound = 2 * rate * ((2 * HEARTBEAT_MS + 5) / 1000);
  console.log(
    `(iii) two instances on PostgreSQL, cdn-b capacity ${CAPACITY}, ${seconds} s of new sessions at ${Math.round(rx.requests.average)} + ${Math.round(ry.requests.average)} req/s, heartbeat ${HEARTBEAT_MS} ms: loads once quiet ${loads.join(' / ')}; cdn-b ${loads[1]} = capacity + ${loads[1] - CAPACITY} (overshoot ${(((loads[1] - CAPACITY) / CAPACITY) * 100).toFixed(0)}%; bound min((N−1)·C, N·r·(2Δ+δ)) = min(${CAPACITY}, ${Math.round(bound)}))`,
  );
} finally {
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
}
