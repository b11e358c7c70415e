// The session table's rebuild at start (`src/engine/rebuild.ts`), for a million live sessions:
// `node bench/rebuild.bench.mjs` (after `pnpm build`; `BENCH_SESSIONS` for another count).
//
// A SQLite store is filled with the decisions a million sessions leave in the TTL and grace
// before now (a demo room's policy, TTL 10 s, grace 10 s: each session decided twice, 10 s
// apart, two million decisions), then, each in a process of its own and in turn: (a) the
// baseline, the same decisions only read from the store (`readDecisions`); (b) the rebuild, as a
// server does at start (`rebuildSessions`: read, replayed by `LoadReplay`, the table seeded).
// Each is run `BENCH_ROUNDS` times (3), alternating; the figures are medians: wall and CPU time
// (the process's, every thread), and the resident memory before, at its peak (sampled at each
// page of 4 096 decisions) and after (the table alone held, after a GC). The rebuild's CPU time
// is also given as a ratio to the read's, and its memory against the table's own bytes, so that
// the figures of a busy machine compare; the load average is beside each round.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from '@wai-steering/bench';
import { encodeDecision, readPolicy, unwrap } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { SqliteStore } from '../dist/index.js';
import { setupDemo } from '../dist/testkit.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const N = Number(process.env.BENCH_SESSIONS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const mb = (b) => `${(b / 1048576).toFixed(1)} MB`;
const S = 1_000_000n;
const NOW = 1_800_000_000_000_000n;

const dir = mkdtempSync(join(tmpdir(), 'wai-rebuild-'));
try {
  const setup = setupDemo(join(dir, 'room'), { port: 8080, budgets: false });
  const policy = unwrap(readPolicy(setup.policyBytes));
  const digest = nodeBackend.sha256(policy.body);
  const path = join(dir, 'steering.sqlite');
  const store = new SqliteStore(path, { checkpoint: 'inline' });
  await store.putBlob('policy', digest, setup.policyBytes);
  const evidence = (p) => [new Uint8Array(32).fill(p + 1)];
  const pathways = [0, 1, 2].map((p) => ({
    load: 0,
    limits: 7,
    status: 0,
    class: 4,
    joules: 1n,
    delivery: 1n,
    evidence: evidence(p),
  }));
  const sig = new Uint8Array(64);
  const session = new Uint8Array(16);
  /** Session `i`'s decision at `t`: its first pathway `i mod 3`. */
  const decision = (i, t) => {
    new DataView(session.buffer).setUint32(0, i, true);
    new DataView(session.buffer).setUint32(4, i * 2654435761, true);
    const body = encodeDecision({
      room: setup.roomId,
      signer: setup.steering.publicKey,
      policy: digest,
      t,
      session,
      draw: i % 1_000_000,
      protocol: 1,
      report: { present: 0, pathway: 0, throughput: 0n, buffer: 0n },
      pathways,
      ttl: 10,
      reason: 1,
      priority: [i % 3, (i + 1) % 3, (i + 2) % 3],
    });
    const bytes = new Uint8Array(body.length + 64);
    bytes.set(body);
    bytes.set(sig, body.length);
    return { bytes, digest: new Uint8Array(createHash('sha256').update(body).digest()) };
  };
  // Each session decided at t1 in [now − 20 s, now − 10 s), then again 10 s later (its TTL).
  const made = Date.now();
  const span = 10n * S;
  for (const later of [0n, span]) {
    let batch = [];
    for (let i = 0; i < N; i++) {
      batch.push(decision(i, NOW - 2n * span + (BigInt(i) * span) / BigInt(N) + later));
      if (batch.length === 4096) {
        await store.commit({ records: [], decisions: batch });
        batch = [];
      }
    }
    if (batch.length > 0) await store.commit({ records: [], decisions: batch });
  }
  await store.close();
  console.log(
    `rebuild bench, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, Node ${process.version}: ${N} live sessions, ${2 * N} decisions stored (${((Date.now() - made) / 1000).toFixed(0)} s to write)`,
  );
  const run = (mode) => {
    const r = spawnSync(
      process.execPath,
      ['--expose-gc', join(here, 'rebuild-child.mjs'), path, String(NOW), mode],
      { encoding: 'utf8', maxBuffer: 1 << 20 },
    );
    if (r.status !== 0) throw new Error(r.stderr);
    return JSON.parse(r.stdout);
  };
  const reads = [];
  const rebuilds = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const a = run('read');
    const b = run('rebuild');
    if (b.sessions !== N || b.keep !== N) throw new Error(`rebuilt ${b.sessions} of ${N}`);
    reads.push(a);
    rebuilds.push(b);
    console.log(
      `round ${round} (load average ${loadavg()[0].toFixed(1)}): (a) read ${a.decisions} decisions in ${a.ms.toFixed(0)} ms (${a.cpuMs.toFixed(0)} ms CPU), RSS peak ${mb(a.rssPeak)}; (b) rebuilt ${b.sessions} sessions (loads ${b.loads.join(', ')}) from ${b.decisions} decisions in ${b.ms.toFixed(0)} ms (${b.cpuMs.toFixed(0)} ms CPU), RSS ${mb(b.rssBefore)} before, ${mb(b.rssPeak)} at its peak, ${mb(b.rssAfter)} after`,
    );
  }
  const m = (xs, f) => median(xs.map(f));
  const readMs = m(reads, (r) => r.ms);
  const rebuildMs = m(rebuilds, (r) => r.ms);
  const readCpu = m(reads, (r) => r.cpuMs);
  const rebuildCpu = m(rebuilds, (r) => r.cpuMs);
  const peak = m(rebuilds, (r) => r.rssPeak - r.rssBefore);
  const after = m(rebuilds, (r) => r.rssAfter - r.rssBefore);
  const table = rebuilds[0].tableBytes;
  console.log(
    `median: rebuild ${rebuildMs.toFixed(0)} ms, ${rebuildCpu.toFixed(0)} ms CPU (${(rebuildCpu / readCpu).toFixed(2)} × the read alone's CPU, ${readCpu.toFixed(0)} ms; ${readMs.toFixed(0)} ms wall; ${((2 * N) / (rebuildCpu / 1000) / 1e6).toFixed(2)} M decisions a CPU second); memory over the process at start: ${mb(peak)} at the peak (${(peak / table).toFixed(1)} × the table's ${mb(table)} of typed arrays), ${mb(after)} once done (the table held)`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
