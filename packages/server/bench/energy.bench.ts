// The energy account from the server's store (`GET /energy`): the account of a day of
// one-second periods for 8 pathways of 3 hops each (2 073 600 records) and a decision a second,
// read from a SQLite store file a page at a time (`src/energy/stream.ts`), as a request
// computes it. Not a test: it prints figures, with ratios to baselines measured in the same run.
//
//   pnpm --filter @wai-steering/server bench:energy   (BENCH_PERIODS, default 86 400; BENCH_ROUNDS, 3)
//
// - the account's wall and CPU time (this process: the store is embedded), best and median of
//   the rounds, against baselines of the same rounds: the store's pages alone (the same reads,
//   nothing done with them), the pages and each record read from its bytes (`readHopRecord`);
//   and the project's baseline (one Ed25519 signature);
// - how long the event loop is held: the longest stretch between two pauses of the account,
//   and the event loop's delay as `monitorEventLoopDelay` sees it while the account runs;
// - the heap in use at each pause, against the heap before it (after a full collection).
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { BASELINE_NAME, baselineSign, measure, median, settings } from '@wai-steering/bench';
import {
  type DecisionFields,
  digestOf,
  encodeHopRecord,
  encodePolicy,
  type Policy,
  type PolicyFields,
  readHopRecord,
  signDecision,
} from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { streamAccount } from '../src/energy/stream.js';
import { SqliteStore } from '../src/store/sqlite/index.js';
import type { StoredRecord } from '../src/store/store.js';

const { rounds } = settings({ rounds: 3, seconds: 0.3, clock: 'cpu' });
const exposed = (globalThis as { gc?: () => void }).gc;
if (exposed === undefined) throw new Error('run with node --expose-gc (the bench script does)');
const gc: () => void = exposed;
const PERIODS = Number(process.env.BENCH_PERIODS ?? 86_400);
const PATHWAYS = 8;
const HOPS = 3;
const P = 1_000_000n;
const T0 = 1_800_000_000_000_000n;
const ROOM = new Uint8Array(32).fill(0xaa);
const secret = new Uint8Array(32).fill(3);
const hopKey = (p: number, h: number) => {
  const k = new Uint8Array(32);
  k.set([0x48, p, h, 0x5a]);
  return k;
};

const fields: PolicyFields = {
  room: ROOM,
  signer: nodeBackend.publicKey(secret),
  period_us: P,
  window_us: 3n * P,
  lag_us: P / 2n,
  basis: 1,
  floor: 0,
  latency_ceiling_ms: 200,
  min_buffer_ms: 4000,
  hysteresis_ppm: 50_000,
  ttl_s: 10,
  min_ttl_s: 4,
  flags: 0,
  initial: 0,
  tiers: [4_000_000n],
  server_uri: 'https://steer.example/s',
  reload_uri: 'https://steer.example/s',
  decision_uri: 'https://steer.example/d/',
  pathways: Array.from({ length: PATHWAYS }, (_, p) => ({
    id: `cdn-${p}`,
    base: 255,
    host: '',
    params: [],
    top_tier: 0,
    latency_ms: 50,
    capacity: 0xffffffff,
    min_share_ppm: 0,
    hops: Array.from({ length: HOPS }, (_, h) => ({ key: hopKey(p, h), place: h === 0 ? 1 : 2 })),
  })),
};
const policy: Policy = { ...fields, body: encodePolicy(fields), sig: new Uint8Array(64) };
const policyDigest = digestOf(policy);
const policies = [{ at: 0n, policy }];
const ms = (x: number) => `${x.toFixed(0)} ms`;
const cpu = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

// The store: a file, filled an hour at a time (not measured).
const dir = mkdtempSync(join(tmpdir(), 'wai-energy-bench-'));
const store = new SqliteStore(join(dir, 'steering.sqlite'));
let t0 = performance.now();
let seq = 0;
function record(k: number, p: number, h: number): StoredRecord {
  const i = (k * 31 + p * 7 + h) % 4096;
  const start = T0 + BigInt(k) * P;
  const body = encodeHopRecord({
    room: ROOM,
    hop: hopKey(p, h),
    start,
    end: start + P,
    sessions: 100 + (i % 50),
    class: 4,
    joules: BigInt(30_000_000 + ((i * 104_729) % 9_000_000)),
    subscriber_us: Array(8).fill(0n),
    tracks: [
      { track: 1, kind: 1, direction: 2, bytes: BigInt(40_000_000 + ((i * 7919) % 20_000_000)) },
    ],
  });
  const bytes = new Uint8Array(body.length + 64);
  bytes.set(body);
  const digest = new Uint8Array(createHash('sha256').update(body).digest());
  return { digest, bytes, hop: hopKey(p, h), start, end: start + P };
}
function decision(k: number) {
  const session = new Uint8Array(16);
  new DataView(session.buffer).setUint32(0, k % 5000);
  const f: DecisionFields = {
    room: ROOM,
    signer: fields.signer,
    policy: policyDigest,
    t: T0 + BigInt(k) * P + 123n,
    session,
    draw: seq++ % 1_000_000,
    protocol: 1,
    report: { present: 0, pathway: 0, throughput: 0n, buffer: 0n },
    pathways: Array.from({ length: PATHWAYS }, () => ({
      load: 0,
      limits: 0,
      status: 3,
      class: 0,
      joules: 0n,
      delivery: 0n,
      evidence: [],
    })),
    ttl: 10,
    reason: 5,
    priority: Array.from({ length: PATHWAYS }, (_, i) => (i + k) % PATHWAYS),
  };
  const bytes = signDecision(f, secret, { backend: nodeBackend, check: false });
  const digest = new Uint8Array(
    createHash('sha256')
      .update(bytes.subarray(0, bytes.length - 64))
      .digest(),
  );
  return { bytes, digest };
}
for (let k0 = 0; k0 < PERIODS; k0 += 600) {
  const records: StoredRecord[] = [];
  const decisions = [];
  for (let k = k0; k < Math.min(PERIODS, k0 + 600); k++) {
    for (let p = 0; p < PATHWAYS; p++) for (let h = 0; h < HOPS; h++) records.push(record(k, p, h));
    decisions.push(decision(k));
  }
  await store.commit({ records, decisions });
}
const nRecords = PERIODS * PATHWAYS * HOPS;
console.log(
  `energy account from the store: ${PATHWAYS} pathways × ${HOPS} hops, one-second periods, ` +
    `${PERIODS} periods (${nRecords} records, ${PERIODS} decisions) in a SQLite file, ` +
    `filled in ${ms(performance.now() - t0)} (not measured); ${rounds} rounds`,
);

const from = T0;
const to = T0 + BigInt(PERIODS) * P;
const immediate = () => new Promise<void>((r) => setImmediate(r));

/**
 * The account as a request computes it, with the stretches between its pauses (the event loop
 * held), in CPU time and wall time; `heap`: a full collection every 32 pauses and the heap in
 * use then (a run apart, its CPU not counted).
 */
async function account(heap = false) {
  let wall = performance.now();
  let c = cpu();
  const walls: number[] = [];
  const cpus: number[] = [];
  const heaps: number[] = [];
  const a = await streamAccount(store, {
    policies,
    from,
    to,
    graceS: 10,
    longestRecordUs: 3n * P,
    pause: async () => {
      walls.push(performance.now() - wall);
      cpus.push(cpu() - c);
      if (heap && cpus.length % 32 === 0) {
        gc();
        heaps.push(process.memoryUsage().heapUsed);
      }
      await immediate();
      wall = performance.now();
      c = cpu();
    },
  });
  const top = (xs: number[]) => {
    const s = [...xs].sort((x, y) => x - y);
    return { max: s[s.length - 1]!, p99: s[Math.floor(s.length * 0.99)]! };
  };
  return { a, pauses: cpus.length, cpu: top(cpus), wall: top(walls), heaps };
}

/** The same pages, nothing done with them; `parse`: each record read from its bytes. */
async function pagesAlone(parse: boolean): Promise<number> {
  const hops = policy.pathways.flatMap((p) => p.hops.map((h) => h.key));
  let n = 0;
  const S = P * BigInt(Math.ceil(512 / 24)); // the account's pages
  for (let e = from; e < to + S; e += S) {
    for (const r of await store.recordsOfHops(hops, e, e + S)) {
      if (parse && !readHopRecord(r.bytes).ok) throw new Error('unreadable');
      n++;
    }
    await immediate();
  }
  let after = null;
  for (;;) {
    const page = await store.listDecisions(from, to, after, 250);
    n += page.decisions.length;
    if (page.next === null) break;
    after = page.next;
    await immediate();
  }
  return n;
}

const baselineUs = () => measure(baselineSign, { rounds: 3, seconds: 0.2, clock: 'cpu' }).median;
const f = {
  wall: [] as number[],
  cpu: [] as number[],
  pages: [] as number[],
  parsed: [] as number[],
  baseline: [] as number[],
};
let last: Awaited<ReturnType<typeof account>> | undefined;
const stretch = { cpu: [] as number[], wall: [] as number[], loop: [] as number[] };
for (let r = 0; r < rounds; r++) {
  f.baseline.push(baselineUs());
  gc();
  let c = cpu();
  await pagesAlone(false);
  f.pages.push(cpu() - c);
  gc();
  c = cpu();
  await pagesAlone(true);
  f.parsed.push(cpu() - c);
  gc();
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  c = cpu();
  t0 = performance.now();
  last = await account();
  f.cpu.push(cpu() - c);
  f.wall.push(performance.now() - t0);
  loop.disable();
  stretch.cpu.push(last.cpu.max);
  stretch.wall.push(last.wall.max);
  stretch.loop.push(loop.max / 1e6);
  console.log(
    `  round ${r + 1}: ${ms(f.wall.at(-1)!)} wall, ${ms(f.cpu.at(-1)!)} CPU, ${last.pauses} pauses; ` +
      `between two pauses at most ${last.cpu.max.toFixed(1)} ms of CPU (99th percentile ${last.cpu.p99.toFixed(1)} ms), ` +
      `${last.wall.max.toFixed(1)} ms of wall time (${last.wall.p99.toFixed(1)} ms); ` +
      `event loop delay at most ${(loop.max / 1e6).toFixed(1)} ms (99th percentile ${(loop.percentile(99) / 1e6).toFixed(1)} ms)`,
  );
}
const acc = median(f.cpu);
console.log(
  `  the account of the day: CPU best ${ms(Math.min(...f.cpu))}, median ${ms(acc)} (wall median ${ms(median(f.wall))}); ` +
    `${(acc / median(f.pages)).toFixed(1)} × the store's pages alone (${ms(median(f.pages))}), ` +
    `${(acc / median(f.parsed)).toFixed(1)} × the pages with every record read (${ms(median(f.parsed))}); ` +
    `${((acc * 1000) / median(f.baseline)).toFixed(0)} × ${BASELINE_NAME} (${median(f.baseline).toFixed(1)} µs); ` +
    `${((acc * 1e6) / nRecords).toFixed(0)} ns a record`,
);
gc();
const heapBefore = process.memoryUsage().heapUsed;
const held = await account(true);
const mib = (b: number) => `${(b / 1048576).toFixed(1)} MiB`;
const q = (x: number) =>
  held.heaps[Math.min(held.heaps.length - 1, Math.floor(held.heaps.length * x))]!;
console.log(
  `  heap in use above the start (${mib(heapBefore)}), after a full collection every 32 pauses: ` +
    `${mib(q(0) - heapBefore)} first, ${mib(q(0.25) - heapBefore)}, ${mib(q(0.5) - heapBefore)}, ${mib(q(0.75) - heapBefore)} at each quarter, ` +
    `${mib(q(1) - heapBefore)} last; at most ${mib(Math.max(...held.heaps) - heapBefore)}`,
);
console.log(
  `  stated: ${last!.a.pathways.map((p) => `${p.id} ${p.periods} periods, ${p.sessions_placed} placed`).join('; ')}`,
);
await store.close();
rmSync(dir, { recursive: true, force: true });
