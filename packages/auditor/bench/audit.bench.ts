// The auditor's benchmark (not a test: `pnpm bench`). In one run, on this machine:
// 1. raw `node:crypto` Ed25519 verifications of decision-sized messages, one core: the baseline;
// 2. decisions audited per second from an archive on one core (`jobs: 1`), and its ratio to (1);
// 3. the same archive with `jobs: 2`, and its ratio to (2);
// 4. the peak resident memory of a child process auditing an archive of 1 million decisions.
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { fromHex, readDecision, toHex, unwrap } from '@wai-steering/wire';
import { auditArchive, decisionFrames } from '../src/node.js';
import { makeArchive } from './make.js';

const N = Number(process.env.AUDIT_BENCH_DECISIONS ?? 20_000);
const BIG = Number(process.env.AUDIT_BENCH_BIG ?? 1_000_000);
const ROUNDS = 3;
const tmp = mkdtempSync(join(tmpdir(), 'wai-audit-bench-'));

function best(times: number[]): number {
  return Math.min(...times);
}

const RAW_WORKER = `
const { parentPort } = require('node:worker_threads');
const { generateKeyPairSync, sign, verify } = require('node:crypto');
const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const m = Buffer.alloc(900);
const s = sign(null, m, privateKey);
parentPort.on('message', (n) => {
  for (let i = 0; i < n; i++) verify(null, m, publicKey, s);
  parentPort.postMessage(0);
});
`;

/** Wall time of `n` raw verifications split over `k` worker threads (best of 3), ms. */
async function rawThreads(k: number, n: number): Promise<number> {
  const workers = Array.from({ length: k }, () => new Worker(RAW_WORKER, { eval: true }));
  const once = () =>
    Promise.all(
      workers.map(
        (w) =>
          new Promise((done) => {
            w.once('message', done);
            w.postMessage(Math.ceil(n / k));
          }),
      ),
    );
  await once(); // warm
  const times: number[] = [];
  for (let r = 0; r < 3; r++) {
    const t0 = performance.now();
    await once();
    times.push(performance.now() - t0);
  }
  await Promise.all(workers.map((w) => w.terminate()));
  return best(times);
}

/** How much faster two threads verify than one, now. */
async function rawInWorkers(n: number): Promise<number> {
  const one = await rawThreads(1, n);
  const two = await rawThreads(2, n);
  return one / two;
}

/** CPU time (user + system, every thread of the process) since `c0`, ms. */
function cpuMs(c0: NodeJS.CpuUsage): number {
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
}

try {
  const small = join(tmp, 'small');
  const size = await makeArchive(small, N, 2_000);
  let room = '';
  for await (const f of decisionFrames(small)) {
    room = toHex(unwrap(readDecision(f)).room);
    break;
  }
  console.log(
    `auditor bench: ${N} decisions of ${size.toFixed(0)} bytes, ${availableParallelism()} cores`,
  );

  // 1. The baseline: raw Ed25519 verifications of messages of the decisions' size.
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const messages = Array.from({ length: N }, (_, i) => {
    const m = Buffer.alloc(Math.round(size));
    m.writeUInt32LE(i, 0);
    return m;
  });
  const sigs = messages.map((m) => sign(null, m, privateKey));
  const raw: number[] = [];
  const rawCpu: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    let ok = 0;
    for (let i = 0; i < N; i++) if (verify(null, messages[i]!, publicKey, sigs[i]!)) ok++;
    raw.push(performance.now() - t0);
    rawCpu.push(cpuMs(c0));
    if (ok !== N) throw new Error('baseline: a signature did not verify');
  }
  const rawRate = (N * 1000) / best(raw);
  const rawCpuRate = (N * 1000) / best(rawCpu);

  // The parallelism the machine gives now: raw verifications in one worker thread and in two.
  const parallel = await rawInWorkers(Math.min(N, 8000));

  // 2 and 3. The audit from the archive, one job and two.
  const rates: Record<number, number> = {};
  const cpuRates: Record<number, number> = {};
  // Rounds alternate 1 and 2 jobs, so that a change of the machine's load hits both alike.
  const times: Record<number, number[]> = { 1: [], 2: [] };
  const cpus: Record<number, number[]> = { 1: [], 2: [] };
  for (let r = 0; r < ROUNDS; r++) {
    for (const jobs of [1, 2]) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const { result } = await auditArchive(small, { roomId: fromHex(room), jobs });
      times[jobs]!.push(performance.now() - t0);
      cpus[jobs]!.push(cpuMs(c0));
      if (result.findings !== 0 || result.decisions !== N) {
        throw new Error(`the bench archive audits with ${result.findings} findings`);
      }
    }
  }
  for (const jobs of [1, 2]) {
    rates[jobs] = (N * 1000) / best(times[jobs]!);
    cpuRates[jobs] = (N * 1000) / best(cpus[jobs]!);
  }
  const load = loadavg()[0]!.toFixed(1);
  console.log(
    `  raw node:crypto Ed25519 verify:   ${Math.round(rawRate)} /s wall, ${Math.round(rawCpuRate)} /s of CPU time (best of ${ROUNDS})`,
  );
  console.log(
    `  audit, 1 job:                     ${Math.round(rates[1]!)} decisions/s wall = ${(rates[1]! / rawRate).toFixed(2)} x raw; ` +
      `${Math.round(cpuRates[1]!)} per CPU second = ${(cpuRates[1]! / rawCpuRate).toFixed(2)} x raw (goal >= 0.8)`,
  );
  console.log(
    `  audit, 2 jobs:                    ${Math.round(rates[2]!)} decisions/s wall = ${(rates[2]! / rates[1]!).toFixed(2)} x 1 job (goal >= 1.5 on 2 cores); ` +
      `${Math.round(cpuRates[2]!)} per CPU second of all threads`,
  );
  console.log(
    `  raw verify in 2 worker threads:   ${parallel.toFixed(2)} x 1 thread (what the machine gives two threads now)`,
  );
  console.log(
    `  (load average ${load} on ${availableParallelism()} cores at the end of these rounds)`,
  );

  // 4. Memory for an archive of a million decisions, audited in a child process.
  if (BIG > 0) {
    const big = join(tmp, 'big');
    const t0 = performance.now();
    await makeArchive(big, BIG, 50_000);
    const built = (performance.now() - t0) / 1000;
    const bytes = statSync(join(big, 'decisions.bin')).size;
    const out = execFileSync(
      process.execPath,
      ['--import', 'tsx', join(import.meta.dirname, 'memory-child.ts'), big, room],
      { encoding: 'utf8', maxBuffer: 1 << 20 },
    );
    const m = JSON.parse(out.trim().split('\n').at(-1)!);
    console.log(
      `  ${m.decisions} decisions (${(bytes / 2 ** 20).toFixed(0)} MiB, built in ${built.toFixed(0)} s), ${m.sessions} sessions: ` +
        `audited in ${m.seconds.toFixed(0)} s, ${m.findings} findings, peak RSS ${(m.rssPeak / 2 ** 20).toFixed(0)} MiB ` +
        `(${(m.rssStart / 2 ** 20).toFixed(0)} MiB at start)`,
    );
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
