// What the server's benchmarks share: free ports, servers in processes of their own, their CPU
// time from /proc, and the load generators (Debian's `wrk`, written in C, so that the load takes
// as little of the machine's cores as it can; autocannon, in this process, when wrk is missing).
import { fork, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg, release, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { monotonicClock } from '../dist/index.js';
import { HopSimulator } from '../dist/testkit.js';

export const here = dirname(fileURLToPath(import.meta.url));
export const DURATION = Number(process.env.BENCH_DURATION ?? 10);
export const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
/** wrk's threads: one leaves the most of the machine's cores to the servers measured. */
export const WRK_THREADS = Number(process.env.BENCH_WRK_THREADS ?? 1);
/** Debian's wrk, when installed; `BENCH_LOAD=autocannon` uses autocannon instead. */
export const WRK =
  process.env.BENCH_LOAD === 'autocannon'
    ? undefined
    : ['/usr/bin/wrk', '/usr/local/bin/wrk'].find((w) => existsSync(w));
export const LOADER = WRK === undefined ? 'autocannon' : `wrk -t${WRK_THREADS}`;

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Starts a bench script in a process of its own; resolves once it says `ready`. */
export function start(script, args = [], execArgv = []) {
  const child = fork(join(here, script), args, {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv,
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} exited (${code})`)));
    child.once('message', (m) =>
      m?.ready ? resolve({ child, url: m.url, pids: [child.pid, ...(m.pids ?? [])] }) : reject(m),
    );
  });
}

export function ask(child, cmd) {
  return new Promise((resolve) => {
    child.once('message', resolve);
    child.send({ cmd });
  });
}

export function stop(server) {
  const child = server.child ?? server;
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', resolve);
    child.send({ cmd: 'stop' });
  });
}

/** utime + stime of /proc/<pid>/stat, s; with `reaped`, its waited-for children's too. */
function statOf(path, reaped = false) {
  try {
    const fields = readFileSync(path, 'utf8').split(') ')[1].split(' ');
    const own = Number(fields[11]) + Number(fields[12]);
    return (reaped ? own + Number(fields[13]) + Number(fields[14]) : own) / 100;
  } catch {
    return 0;
  }
}

/** CPU seconds (user + system) of a process, every thread, from /proc (Linux). */
export const cpuOf = (pid) => statOf(`/proc/${pid}/stat`);
/** CPU seconds of a process's main thread (the event loop). */
export const mainThreadCpuOf = (pid) => statOf(`/proc/${pid}/task/${pid}/stat`);
/** CPU seconds of a set of processes. */
export const cpuSum = (pids) => pids.reduce((s, p) => s + cpuOf(p), 0);

/** The processes whose parent is `pid` (the PostgreSQL backends of a postmaster). */
export function childrenOf(pid) {
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

/**
 * CPU seconds of a PostgreSQL cluster: its postmaster, every live backend and background process,
 * and those that exited since it started (an autovacuum worker, a connection closed: counted in
 * the postmaster's children's times once it reaped them).
 */
export function clusterCpuOf(postmaster) {
  let s = statOf(`/proc/${postmaster}/stat`, true);
  for (const pid of childrenOf(postmaster)) s += statOf(`/proc/${pid}/stat`, true);
  return s;
}

/**
 * A PostgreSQL cluster's CPU seconds by kind of process (`backend` for the connections, then
 * `checkpointer`, `walwriter`, `autovacuum worker`, … from each process's title), with those
 * that exited since it started as `exited` (the postmaster's reaped children: autovacuum workers,
 * connections closed). Two of them apart say where a run's database CPU went.
 */
export function clusterCpuByKind(postmaster) {
  const kinds = { postmaster: statOf(`/proc/${postmaster}/stat`), exited: 0 };
  try {
    const fields = readFileSync(`/proc/${postmaster}/stat`, 'utf8').split(') ')[1].split(' ');
    kinds.exited = (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {}
  for (const pid of childrenOf(postmaster)) {
    let title = '';
    try {
      title = readFileSync(`/proc/${pid}/cmdline`, 'latin1').replaceAll('\0', ' ').trim();
    } catch {}
    const m =
      /^postgres: (?:\S+: )?(checkpointer|background writer|walwriter|autovacuum launcher|autovacuum worker|logical replication launcher|walsender|io worker)/.exec(
        title,
      );
    const kind = m === null ? 'backend' : m[1];
    kinds[kind] = (kinds[kind] ?? 0) + statOf(`/proc/${pid}/stat`, true);
  }
  return kinds;
}

/** The 1-minute load average, to print beside a figure. */
export const load = () => loadavg()[0].toFixed(1);

/** The monotonic clock in µs, as V8's CPU profiles count time. */
export const monoUs = () => Number(process.hrtime.bigint() / 1000n);

const SESSIONS_LUA = join(here, 'sessions.lua');
const LATENCY_LUA = join(here, 'latency.lua');
const QUERY = '&_HLS_pathway=%22cdn-a%22&_HLS_throughput=5000000';

let counter = 0;
function cannon(url, { duration, connections = CONNECTIONS, steering = true, query = QUERY }) {
  const options = steering
    ? {
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
      }
    : { url };
  return new Promise((resolve, reject) => {
    autocannon({ connections, pipelining: 1, duration, ...options }, (err, r) =>
      err
        ? reject(err)
        : resolve({
            rps: r.requests.average,
            total: r.requests.total,
            p50: `${r.latency.p50} ms`,
            p99: `${r.latency.p99} ms`,
            latencyMs: {
              p50: r.latency.p50,
              p99: r.latency.p99,
              p999: r.latency.p99_9,
              max: r.latency.max,
            },
            bad: r.non2xx + r.errors,
          }),
    );
  });
}

/**
 * One run of load: `steering` requests (each from a distinct session, `bench/sessions.lua`) or
 * plain GETs of `url`, for `duration` seconds; requests per second, the total, latency and the
 * answers that were not 2xx.
 */
export async function loadRun(url, options) {
  if (options.client === 'closed-loop') return closedLoop(url, options);
  if (WRK === undefined) return cannon(url, options);
  const {
    duration,
    connections = CONNECTIONS,
    steering = true,
    query,
    threads = WRK_THREADS,
  } = options;
  const env = { ...process.env, ...(query === undefined ? {} : { WAI_QUERY: query }) };
  const args = [`-t${threads}`, `-c${connections}`, `-d${duration}s`, '--latency'];
  args.push('-s', steering ? SESSIONS_LUA : LATENCY_LUA);
  // Spawned, not run synchronously: two loads at once (two instances) run side by side.
  const out = await new Promise((resolve, reject) => {
    const child = spawn(WRK, [...args, url], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c) => {
      stdout += c;
    });
    child.stderr.setEncoding('utf8').on('data', (c) => {
      stderr += c;
    });
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`wrk failed: ${stderr}`)),
    );
  });
  const total = Number(/(\d+) requests in/.exec(out)?.[1] ?? Number.NaN);
  // The scripts' percentiles (µs), as ms.
  const pct = (name) => Number(new RegExp(`wai-latency .*\\b${name}=(\\d+)`).exec(out)?.[1]) / 1000;
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? Number.NaN),
    total,
    p50: /^\s+50%\s+(\S+)/m.exec(out)?.[1] ?? '?',
    p99: /^\s+99%\s+(\S+)/m.exec(out)?.[1] ?? '?',
    latencyMs: { p50: pct('p50'), p99: pct('p99'), p999: pct('p999'), max: pct('max') },
    bad:
      Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0) +
      Number(
        /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out)?.[1] ?? 0,
      ),
  };
}

/**
 * One run of load from `closed-loop.mjs` (a process of its own): the latency rounds' client, whose
 * figures agree with the server's own view where wrk's did not (`closed-loop.mjs` says why).
 */
async function closedLoop(url, { duration, connections = CONNECTIONS, steering = true, query }) {
  const env = { ...process.env, ...(query === undefined ? {} : { WAI_QUERY: query }) };
  const args = [join(here, 'closed-loop.mjs'), url, String(connections), String(duration)];
  if (steering) args.push('steering');
  const out = await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (c) => {
      stdout += c;
    });
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`closed-loop.mjs exited (${code})`)),
    );
  });
  const r = JSON.parse(out);
  return {
    rps: r.rps,
    total: r.total,
    p50: `${r.p50.toFixed(2)}ms`,
    p99: `${r.p99.toFixed(2)}ms`,
    latencyMs: { p50: r.p50, p99: r.p99, p999: r.p999, max: r.max },
    bad: r.bad,
  };
}

/**
 * A run with the CPU time the processes `pids` spent on it, per request (µs), and that of the
 * first one's main thread (its event loop).
 */
export async function measured(pids, url, options) {
  const c0 = cpuSum(pids);
  const m0 = mainThreadCpuOf(pids[0]);
  const r = await loadRun(url, options);
  return {
    ...r,
    cpuUs: ((cpuSum(pids) - c0) / r.total) * 1e6,
    mainUs: ((mainThreadCpuOf(pids[0]) - m0) / r.total) * 1e6,
    load: load(),
  };
}

/** The filesystem that holds `path`: its type, its source and where it is mounted (Linux). */
export function filesystemOf(path) {
  let real;
  try {
    real = realpathSync(path);
  } catch {
    return { type: '?', source: '?', mount: '?' };
  }
  let best = { type: '?', source: '?', mount: '' };
  try {
    for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
      // ID parent major:minor root mount-point options … - type source super-options
      const [left, right] = line.split(' - ');
      if (right === undefined) continue;
      const mount = left.split(' ')[4].replace(/\\040/g, ' ');
      const [type, source] = right.split(' ');
      const under = real === mount || real.startsWith(mount === '/' ? '/' : `${mount}/`);
      if (under && mount.length >= best.mount.length) best = { type, source, mount };
    }
  } catch {}
  return best;
}

/** Filesystems in memory: a store there measures no disk (its fsyncs cost nothing). */
const IN_MEMORY = new Set(['tmpfs', 'ramfs']);

/**
 * Where the benches keep their stores: `BENCH_STORE_DIR`, else the system's temporary directory
 * unless that is in memory (tmpfs), else `tmp/bench` of the repository, on the checkout's disk. A
 * deployment's store is on a disk: the figures are a disk's wherever the machine's `/tmp` is.
 */
export function storeDir() {
  const given = process.env.BENCH_STORE_DIR;
  if (given !== undefined && given !== '') {
    mkdirSync(given, { recursive: true });
    return given;
  }
  if (!IN_MEMORY.has(filesystemOf(tmpdir()).type)) return tmpdir();
  const repo = join(here, '..', '..', '..', 'tmp', 'bench');
  mkdirSync(repo, { recursive: true });
  return repo;
}

/** The machine, to print with the figures: CPU model, cores, kernel, Node, and the store's disk. */
export function machine(dir = storeDir()) {
  let model = cpus()[0]?.model?.trim() ?? '?';
  try {
    model = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? model;
  } catch {}
  const fs = filesystemOf(dir);
  return {
    cpu: model,
    cores: cpus().length,
    kernel: release(),
    node: process.version,
    store: { dir, ...fs },
    line: `${model}, ${cpus().length} cores, Linux ${release()}, Node ${process.version}; the stores in ${dir}, on ${fs.type} (${fs.source} mounted at ${fs.mount})`,
  };
}

/** Hops of a demo room (`setupDemo`) posting their records to the server at `url`, as in a room. */
export function hopsFor(setup, url) {
  return new HopSimulator({
    policy: setup.policy,
    roomId: setup.roomId,
    hops: setup.hops,
    base: url,
    clock: monotonicClock(),
    history: 7,
  });
}
