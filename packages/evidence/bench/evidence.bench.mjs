// Benchmark of evidence recomputation (§5) on the BUILT package (`pnpm build` first): 32 pathways
// × 4 hops × 12 periods in the window (1 536 records named), from a MemoryEvidenceStore holding
// 24 periods per hop (3 072 records), as an EvidenceCache does at each window move.
//
//   node bench/evidence.bench.mjs            (BENCH_ROUNDS, default 7; BENCH_SECONDS, default 1)
import { encodeHopRecord, NO_CAPACITY_LIMIT, NOT_A_CLONE } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { EvidenceCache, MemoryEvidenceStore, selectEvidence, windowAt } from '../dist/index.js';

const PATHWAYS = 32;
const HOPS = 4;
const PERIODS = 12;
const HELD = 24;
const P = 10_000_000n;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 1);

const key = (p, h) => {
  const k = new Uint8Array(32);
  k[0] = p;
  k[1] = h;
  k[31] = 0x77;
  return k;
};
const room = new Uint8Array(32).fill(0xaa);
const policy = {
  period_us: P,
  window_us: P * BigInt(PERIODS),
  lag_us: 2_000_000n,
  basis: 1,
  floor: 1,
  pathways: Array.from({ length: PATHWAYS }, (_, p) => ({
    id: `p${p}`,
    base: NOT_A_CLONE,
    host: '',
    params: [],
    top_tier: 2,
    latency_ms: 40,
    capacity: NO_CAPACITY_LIMIT,
    min_share_ppm: 0,
    hops: Array.from({ length: HOPS }, (_, h) => ({
      key: key(p, h),
      place: h === HOPS - 1 ? 1 : 2,
    })),
  })),
};

const store = new MemoryEvidenceStore();
for (let p = 0; p < PATHWAYS; p++) {
  for (let h = 0; h < HOPS; h++) {
    for (let k = 0; k < HELD; k++) {
      const record = {
        room,
        hop: key(p, h),
        start: BigInt(k) * P,
        end: BigInt(k + 1) * P,
        sessions: 40,
        class: 4,
        joules: BigInt(1_000_000 + p * 1000 + h * 10 + k),
        subscriber_us: [0n, 0n, 400_000_000n, 0n, 0n, 0n, 0n, 0n],
        tracks: [
          { track: 1, kind: 1, direction: 2, bytes: 50_000_000n + BigInt(p) },
          { track: 1, kind: 1, direction: 1, bytes: 50_000_000n },
        ],
      };
      store.add(record, nodeBackend.sha256(encodeHopRecord(record)));
    }
  }
}

const t = P * BigInt(HELD) + policy.lag_us; // the window [12P, 24P)
const window = windowAt(policy, t);
const check = selectEvidence(policy, window, store);
const named = check.pathways.reduce((n, p) => n + p.named.length, 0);
if (named !== PATHWAYS * HOPS * PERIODS || check.pathways.some((p) => p.status !== 0)) {
  throw new Error('bench setup: expected every pathway with a figure');
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function msPer(op) {
  let n = 0;
  const start = performance.now();
  let elapsed = 0;
  do {
    op();
    n++;
    elapsed = performance.now() - start;
  } while (elapsed < SECONDS * 1000);
  return elapsed / n;
}

for (let i = 0; i < 20; i++) selectEvidence(policy, window, store); // warm up
const recompute = [];
for (let r = 0; r < ROUNDS; r++) recompute.push(msPer(() => selectEvidence(policy, window, store)));
const ms = median(recompute);

const cache = new EvidenceCache(policy, store);
cache.at(t);
let hits = 0;
const hitStart = performance.now();
for (let i = 0; i < 1_000_000; i++) if (cache.at(t + BigInt(i & 1023)) !== undefined) hits++;
const hitNs = ((performance.now() - hitStart) * 1e6) / hits;

console.log(
  `evidence recomputation, ${PATHWAYS} pathways × ${HOPS} hops × ${PERIODS} periods ` +
    `(${named} records named of ${store.size} held; median of ${ROUNDS} rounds):`,
);
console.log(
  `  ${ms.toFixed(3)} ms per recomputation, ${Math.round(named / (ms / 1000)).toLocaleString('en')} records/s`,
);
console.log(`  EvidenceCache.at while the window holds: ${hitNs.toFixed(1)} ns`);
