// `pnpm bench:server`: the steering server against a minimal signing server, on loopback; then
// the store and the instances (`instances.bench.mjs`), and the decision log (`log.bench.mjs`).
//
// (a) a minimal node:http server signing a fixed 300-byte message with node:crypto per request;
// (b) the steering server answering steering requests, each from a distinct session, 3 pathways,
//     evidence of 6 periods (36 records named per decision), archive on (SQLite, WAL, NORMAL).
// Each server runs in its own process; autocannon runs in this one. Then the bytes stored per
// decision, and the resident memory of the session table with 100k and 1M live sessions (each in
// a process of its own).
import { fork, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from '@wai-steering/bench';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { monotonicClock } from '../dist/index.js';
import { HopSimulator, setupDemo } from '../dist/testkit.js';

const here = dirname(fileURLToPath(import.meta.url));
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);

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

function start(script, args = []) {
  const child = fork(join(here, script), args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} exited (${code})`)));
    child.once('message', (m) => (m?.ready ? resolve({ child, url: m.url }) : reject(m)));
  });
}

function ask(child, cmd) {
  return new Promise((resolve) => {
    child.once('message', resolve);
    child.send({ cmd });
  });
}

function stop(child) {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', resolve);
    child.send({ cmd: 'stop' });
  });
}

/** CPU seconds (user + system) a child process has used, from /proc (Linux). */
function cpuOf(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/** A run of autocannon, with the server's CPU time per request. */
async function measure(child, options) {
  const c0 = cpuOf(child.pid);
  const result = await cannon(options);
  result.cpuPerRequestUs = ((cpuOf(child.pid) - c0) / result.requests.total) * 1e6;
  return result;
}

function cannon(options) {
  return new Promise((resolve, reject) => {
    autocannon({ connections: CONNECTIONS, pipelining: 1, ...options }, (err, result) =>
      err ? reject(err) : resolve(result),
    );
  });
}

const mb = (b) => `${(b / 1048576).toFixed(1)} MB`;
const summary = (r) =>
  `${Math.round(r.requests.average)} req/s (p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, ${r.non2xx} non-2xx, ${r.errors} errors; server CPU ${r.cpuPerRequestUs.toFixed(0)} µs per request)`;

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const a = await start('baseline-server.mjs');
const dir = mkdtempSync(join(tmpdir(), 'wai-bench-'));
try {
  const port = await freePort();
  const setup = setupDemo(dir, { port, periodMs: 10_000, windowPeriods: 6, budgets: false });
  const b = await start('steering-server.mjs', [setup.configPath]);
  const sim = new HopSimulator({
    policy: setup.policy,
    roomId: setup.roomId,
    hops: setup.hops,
    base: b.url,
    clock: monotonicClock(),
    history: 7,
  });
  await sim.start();
  // One decision, to show what is archived.
  const manifest = await (await fetch(`${b.url}/steer`)).json();
  const decision = new Uint8Array(
    await (await fetch(manifest['science.transaction.wai-decision'])).arrayBuffer(),
  );
  const named = (() => {
    // §7.1: the count at 148, pathways from 149; each: load 4, limits 1, status 1, class 1,
    // J 16, D 16, count.
    let pos = 149;
    let n = 0;
    for (let p = 0; p < decision[148]; p++) {
      const k = decision[pos + 39];
      n += k;
      pos += 40 + 32 * k;
    }
    return n;
  })();
  let counter = 0;
  const steering = {
    url: b.url,
    requests: [
      {
        method: 'GET',
        setupRequest: (req) => {
          const session = (counter++).toString(16).padStart(32, '0');
          req.path = `/steer/reload?wai_session=${session}&_HLS_pathway=%22cdn-a%22&_HLS_throughput=5000000`;
          return req;
        },
      },
    ],
  };
  // Warm both, then alternate (a) and (b): the machine's other load moves both alike.
  await cannon({ url: a.url, duration: WARMUP });
  await cannon({ ...steering, duration: WARMUP });
  const as = [];
  const bs = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const ra = await measure(a.child, { url: a.url, duration: DURATION });
    const rb = await measure(b.child, { ...steering, duration: DURATION });
    as.push(ra);
    bs.push(rb);
    console.log(`round ${round}:`);
    console.log(`  (a) node:http + one Ed25519 signature of 300 bytes: ${summary(ra)}`);
    console.log(
      `  (b) steering, a distinct session per request, 3 pathways, ${named} records named per decision (${decision.length}-byte WSD1), archive on: ${summary(rb)}`,
    );
    console.log(
      `  (b)/(a) = ${(rb.requests.average / ra.requests.average).toFixed(3)} in requests per second; ${(ra.cpuPerRequestUs / rb.cpuPerRequestUs).toFixed(3)} in server CPU per request`,
    );
  }
  await stop(a.child);
  const best = (rs) => rs.reduce((x, y) => (y.requests.average > x.requests.average ? y : x));
  const ba = best(as);
  const bb = best(bs);
  const ratios = as.map((ra, i) => bs[i].requests.average / ra.requests.average);
  const cpuRatios = as.map((ra, i) => ra.cpuPerRequestUs / bs[i].cpuPerRequestUs);
  console.log(
    `median of ${ROUNDS} rounds' ratios: (b)/(a) = ${median(ratios).toFixed(3)} in requests per second; ${median(cpuRatios).toFixed(3)} in server CPU per request`,
  );
  console.log(
    `best of ${ROUNDS}: (a) ${Math.round(ba.requests.average)} req/s, (b) ${Math.round(bb.requests.average)} req/s (p50 ${bb.latency.p50} ms, p99 ${bb.latency.p99} ms): (b)/(a) = ${(bb.requests.average / ba.requests.average).toFixed(3)} (goal ≥ 0.8)`,
  );
  const stats = await ask(b.child, 'stats');
  await sim.stop();
  await stop(b.child);
  console.log(
    `(b) process RSS ${mb(stats.rss)} with ${stats.sessions} live sessions (table ${mb(stats.sessionBytes)})`,
  );

  // Bytes stored per decision, after the server closed (WAL checkpointed into the file).
  const db = new Database(join(dir, 'steering.sqlite'), { readonly: true });
  const decisions = db.prepare('SELECT count(*) FROM decisions').pluck().get();
  const sets = db.prepare('SELECT count(*) FROM sets').pluck().get();
  const pageSize = db.pragma('page_size', { simple: true });
  const fileBytes = statSync(join(dir, 'steering.sqlite')).size;
  let perTable = '';
  let decisionBytes = 0;
  try {
    const rows = db.prepare('SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name').all();
    for (const r of rows)
      if (r.name === 'decisions' || r.name === 'decisions_key') decisionBytes += r.bytes;
    perTable = rows.map((r) => `${r.name} ${mb(r.bytes)}`).join(', ');
  } catch {
    decisionBytes = Number.NaN;
  }
  const tails = db.prepare('SELECT avg(length(tail)) FROM decisions').pluck().get();
  db.close();
  console.log(
    `store: ${decisions} decisions in ${sets} evidence sets; decisions table and index ${(decisionBytes / decisions).toFixed(1)} bytes per decision (tail ${tails.toFixed(0)} bytes; a WSD1 is ${decision.length}); whole file ${(fileBytes / decisions).toFixed(1)} bytes per decision (page ${pageSize}; ${perTable})`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}

// Resident memory of the session table, each count in a fresh process.
for (const n of [100_000, 1_000_000]) {
  const r = spawnSync(
    process.execPath,
    ['--expose-gc', join(here, 'sessions-rss.mjs'), String(n)],
    {
      encoding: 'utf8',
    },
  );
  if (r.status !== 0) throw new Error(r.stderr);
  const m = JSON.parse(r.stdout);
  console.log(
    `sessions: ${m.sessions} live: RSS ${mb(m.rssAfter)} (${mb(m.rssAfter - m.rssBefore)} over the empty table; typed arrays ${mb(m.tableBytes)}, ${m.slots} slots)`,
  );
}

// The store and the instances: SQLite against PostgreSQL, --workers 2 against 1, the capacity
// overshoot of two instances.
await import('./instances.bench.mjs');

// The decision log: its cost per decision, and its integration's rate.
await import('./log.bench.mjs');
