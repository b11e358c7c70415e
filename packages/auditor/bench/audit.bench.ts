// The auditor's benchmark (not a test: `pnpm bench`). In one run, on this machine, each round
// measuring all of them one after the other (the best round of each kept):
// 1. raw `node:crypto` Ed25519 verifications of decision-sized messages, one core: the baseline;
// 2. decisions audited per second from an archive on one core (`jobs: 1`), and its ratio to (1),
//    in wall time and per CPU second;
// 3. the same archive with `jobs: 2`, and its ratios to (1) and (2);
// 3b. the same archive carrying its decision log (checkpoint and entries), `jobs: 1`: the log's
//    check (the checkpoint's signature, the entries' root, each decision matched to its entry)
//    against (2), goal <= 1.1 x;
// 4. the peak resident memory of a child process auditing an archive of 1 million decisions.
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { fromHex, readDecision, toHex, unwrap } from '@wai-steering/wire';
import { auditArchive, decisionFrames } from '../src/node.js';
import { addLog, makeArchive } from './make.js';

const N = Number(process.env.AUDIT_BENCH_DECISIONS ?? 20_000);
const BIG = Number(process.env.AUDIT_BENCH_BIG ?? 1_000_000);
const ROUNDS = Number(process.env.AUDIT_BENCH_ROUNDS ?? 5);
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
  const logged = join(tmp, 'logged');
  cpSync(small, logged, { recursive: true });
  await addLog(logged);
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
  const rawOnce = (): void => {
    let ok = 0;
    for (let i = 0; i < N; i++) if (verify(null, messages[i]!, publicKey, sigs[i]!)) ok++;
    if (ok !== N) throw new Error('baseline: a signature did not verify');
  };

  // Every round measures each of them, one after the other, so that a change of the machine's
  // load (it is shared) hits all alike; the best round of each is kept.
  const wall: Record<string, number[]> = { raw: [], one: [], two: [], raw2: [], log: [] };
  const cpu: Record<string, number[]> = { raw: [], one: [], two: [], log: [] };
  const timed = async (name: string, f: () => unknown): Promise<void> => {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await f();
    wall[name]!.push(performance.now() - t0);
    cpu[name]?.push(cpuMs(c0));
  };
  const audit = async (jobs: number, dir = small): Promise<void> => {
    const a = await auditArchive(dir, { roomId: fromHex(room), jobs });
    a.dispose();
    if (a.result.findings !== 0 || a.result.decisions !== N) {
      throw new Error(`the bench archive audits with ${a.result.findings} findings`);
    }
    if (dir === logged && a.result.log?.size !== N) throw new Error('the log was not checked');
  };
  for (let r = 0; r < ROUNDS; r++) {
    await timed('raw', rawOnce);
    await timed('one', () => audit(1));
    await timed('log', () => audit(1, logged));
    await timed('two', () => audit(2));
    // The parallelism the machine gives now: raw verifications in one worker thread and in two.
    wall.raw2!.push(await rawInWorkers(Math.min(N, 8000)));
  }
  const rate = (name: string) => (N * 1000) / best(wall[name]!);
  const cpuRate = (name: string) => (N * 1000) / best(cpu[name]!);
  const load = loadavg()[0]!.toFixed(1);
  console.log(
    `  raw node:crypto Ed25519 verify:   ${Math.round(rate('raw'))} /s wall, ${Math.round(cpuRate('raw'))} /s of CPU time (best of ${ROUNDS})`,
  );
  console.log(
    `  audit, 1 job:                     ${Math.round(rate('one'))} decisions/s wall = ${(rate('one') / rate('raw')).toFixed(2)} x raw; ` +
      `${Math.round(cpuRate('one'))} per CPU second = ${(cpuRate('one') / cpuRate('raw')).toFixed(2)} x raw (goal >= 0.8)`,
  );
  console.log(
    `  audit, 2 jobs:                    ${Math.round(rate('two'))} decisions/s wall = ${(rate('two') / rate('raw')).toFixed(2)} x raw, ` +
      `${(rate('two') / rate('one')).toFixed(2)} x 1 job (goal >= 1.5 on 2 cores); ${Math.round(cpuRate('two'))} per CPU second of all threads`,
  );
  console.log(
    `  audit with the log's check, 1 job: ${Math.round(rate('log'))} decisions/s wall; costs ${(best(wall.log!) / best(wall.one!)).toFixed(3)} x the audit without it in wall time, ` +
      `${(best(cpu.log!) / best(cpu.one!)).toFixed(3)} x in CPU time (goal <= 1.1)`,
  );
  console.log(
    `  raw verify in 2 worker threads:   ${Math.max(...wall.raw2!).toFixed(2)} x 1 thread (what the machine gives two threads, at best)`,
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
