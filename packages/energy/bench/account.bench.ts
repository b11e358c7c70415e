// The energy account's bench: the account of a day of one-second periods
// for 8 pathways of 3 hops each (2 073 600 records), and the memory it holds as the span grows.
// Not a test: it prints figures, with ratios to baselines measured in the same run.
//
//   pnpm --filter @wai-steering/energy bench      (BENCH_ROUNDS, default 3)
//
// - the account of the day's records, pre-built in memory (the account, not the codec): CPU time
//   of this thread's process (user + system, so garbage collection included), best and median
//   of the rounds, against two baselines measured in the same rounds: one pass over the records
//   adding up their joules (the least any account does), and the project's baseline (one raw
//   node:crypto Ed25519 signature of 300 bytes);
// - the same with the records read from their bytes first (`readHopRecord` and a SHA-256 digest
//   each), on an hour, with its ratio to the account alone;
// - the heap held while the span grows, records made as they are fed (an hour, a day, a week):
//   after a full garbage collection at each quarter of the span.
import { BASELINE_NAME, baselineSign, measure, median, settings } from '@wai-steering/bench';
import type { EvidenceRecord } from '@wai-steering/evidence';
import { encodeHopRecord, readHopRecord } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { type AccountDecision, EnergyAccumulator, energyAccount } from '../src/index.js';
import { benchPolicy, digestViews, HOPS, keyViews, P, PATHWAYS, periodRecords } from './make.js';

const { rounds } = settings({ rounds: 3, seconds: 0.3, clock: 'cpu' });
const exposed = (globalThis as { gc?: () => void }).gc;
if (exposed === undefined) throw new Error('run with node --expose-gc (pnpm bench does)');
const gc: () => void = exposed;
const DAY = 86_400;
const policy = benchPolicy();
const policies = [{ at: 0n, policy }];

const cpu = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const fmt = (ms: number) => `${ms.toFixed(0)} ms`;

console.log(
  `energy account: ${PATHWAYS} pathways × ${HOPS} hops, one-second periods, ${rounds} rounds, CPU time`,
);

// The day's records, in memory.
let t0 = performance.now();
const digests = digestViews();
const keys = keyViews();
const day: EvidenceRecord[] = [];
for (let k = 0; k < DAY; k++) for (const r of periodRecords(k, digests, keys)) day.push(r);
console.log(`  ${day.length} records made in ${fmt(performance.now() - t0)} (not measured)`);
const decisions: AccountDecision[] = Array.from({ length: DAY }, (_, i) => {
  const session = new Uint8Array(16);
  new DataView(session.buffer).setUint32(0, i % 5000);
  return {
    t: BigInt(i) * P + 123n,
    session,
    policy: nodeBackend.sha256(policy.body),
    ttl: 10,
    priority: [i % PATHWAYS],
    pathways: policy.pathways,
  };
});

function account(withDecisions = false): void {
  const acc = new EnergyAccumulator({
    policies,
    from: 0n,
    to: BigInt(DAY) * P,
    ...(withDecisions ? { graceS: 10 } : {}),
  });
  let d = 0;
  for (const r of day) {
    if (withDecisions)
      while (d < decisions.length && decisions[d]!.t < r.record.start)
        acc.addDecision(decisions[d++]!);
    acc.addRecord(r);
  }
  acc.finish();
}

function touch(): bigint {
  let j = 0n;
  for (const r of day) j += r.record.joules;
  return j;
}

const baselineUs = () => measure(baselineSign, { rounds: 3, seconds: 0.2, clock: 'cpu' }).median;

const figures = { account: [] as number[], touch: [] as number[], baseline: [] as number[] };
account(); // warm
for (let r = 0; r < rounds; r++) {
  figures.baseline.push(baselineUs());
  gc();
  let c = cpu();
  touch();
  figures.touch.push(cpu() - c);
  gc();
  c = cpu();
  account();
  figures.account.push(cpu() - c);
}
const acc = median(figures.account);
console.log(
  `  a day (${day.length} records): best ${fmt(Math.min(...figures.account))}, median ${fmt(acc)}; ` +
    `${(acc / median(figures.touch)).toFixed(1)} × one pass adding up the records' joules ` +
    `(${fmt(median(figures.touch))}); ${((acc * 1000) / median(figures.baseline)).toFixed(0)} × ${BASELINE_NAME}` +
    ` (${median(figures.baseline).toFixed(1)} µs); ${((acc * 1e6) / day.length).toFixed(0)} ns a record`,
);

gc();
let c = cpu();
account(true);
const withDecisions = cpu() - c;
console.log(
  `  the same with ${decisions.length} decisions replayed (sessions placed): ${fmt(withDecisions)}, ${(withDecisions / acc).toFixed(2)} × the account alone`,
);

gc();
c = cpu();
energyAccount({ policies, from: 0n, to: BigInt(DAY) * P, records: day });
const arrayFn = cpu() - c;
console.log(
  `  energyAccount (the records given at once, sorted by start first): ${fmt(arrayFn)}, ${(arrayFn / acc).toFixed(2)} × the accumulator`,
);

// An hour read from bytes: the codec's part, measured apart (the account is the one above).
const HOUR = 3600;
const hourBytes: Uint8Array[] = [];
for (let i = 0; i < HOUR * PATHWAYS * HOPS; i++) {
  const body = encodeHopRecord(day[i]!.record);
  const frame = new Uint8Array(body.length + 64);
  frame.set(body);
  hourBytes.push(frame);
}
let sink = 0;
function readHour(): void {
  for (const bytes of hourBytes) {
    const read = readHopRecord(bytes);
    if (!read.ok) throw read.refusal;
    sink += nodeBackend.sha256(read.value.body)[0]!;
  }
}
readHour();
const readMs: number[] = [];
for (let r = 0; r < rounds; r++) {
  gc();
  c = cpu();
  readHour();
  readMs.push(cpu() - c);
}
const readDay = (median(readMs) * DAY) / HOUR;
if (sink < 0) throw new Error('unreachable: the digests are read so that they are computed');
console.log(
  `  reading the records from their bytes (readHopRecord and a SHA-256 digest each), measured on an hour ` +
    `(${hourBytes.length} records, ${fmt(median(readMs))}): a day at that rate ${fmt(readDay)}, ` +
    `${(readDay / acc).toFixed(1)} × the account; reading and the account together, ${fmt(readDay + acc)} a day`,
);

// Memory as the span grows: records made as they are fed, nothing else kept.
day.length = 0;
hourBytes.length = 0;
function heapOver(periods: number): { start: number; quarters: number[] } {
  gc();
  const start = process.memoryUsage().heapUsed;
  const quarters: number[] = [];
  const a = new EnergyAccumulator({ policies, from: 0n, to: BigInt(periods) * P });
  for (let k = 0; k < periods; k++) {
    for (const r of periodRecords(k, digests, keys)) a.addRecord(r);
    if ((k + 1) % (periods / 4) === 0) {
      gc();
      quarters.push(process.memoryUsage().heapUsed - start);
    }
  }
  a.finish();
  return { start, quarters };
}
const kb = (b: number) => `${(b / 1024).toFixed(0)} KiB`;
heapOver(HOUR); // settles the heap (code, feedback, the day's records freed) before the figures
for (const [name, periods] of [
  ['an hour', HOUR],
  ['a day', DAY],
  ['a week', 7 * DAY],
] as const) {
  t0 = performance.now();
  const { start, quarters } = heapOver(periods);
  console.log(
    `  heap held over ${name} (${periods * PATHWAYS * HOPS} records made as fed): ${quarters.map(kb).join(', ')} ` +
      `at each quarter (of ${kb(start)} in use before; ${fmt(performance.now() - t0)} wall)`,
  );
}
