// Benchmark of evidence recomputation (§5) on the BUILT package (`pnpm build` first): 32 pathways
// × 4 hops × 12 periods in the window (1 536 records named), from a MemoryEvidenceStore holding
// 24 periods per hop (3 072 records), as an EvidenceCache does at each window move.
//
//   node bench/evidence.bench.mjs            (BENCH_ROUNDS, default 7; BENCH_SECONDS, default 1)
//
// The recomputation is measured against the project's baseline (one raw node:crypto Ed25519
// signature) in the same rounds (`@wai-steering/bench`).
import { BASELINE_NAME, baselineSign, compare, measure, settings } from '@wai-steering/bench';
import { encodeHopRecord, NO_CAPACITY_LIMIT, NOT_A_CLONE } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { EvidenceCache, MemoryEvidenceStore, selectEvidence, windowAt } from '../dist/index.js';

const PATHWAYS = 32;
const HOPS = 4;
const PERIODS = 12;
const HELD = 24;
const P = 10_000_000n;
const { rounds: ROUNDS, seconds: SECONDS, clock } = settings({ rounds: 7, seconds: 1 });

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

const recompute = compare(
  baselineSign,
  { recompute: () => selectEvidence(policy, window, store) },
  { rounds: ROUNDS, seconds: SECONDS, clock, batch: 1, warmup: 0.5 },
).recompute;
const ms = recompute.median / 1000;

const cache = new EvidenceCache(policy, store);
cache.at(t);
let sink = 0;
const hit = measure(
  (i) => {
    if (cache.at(t + BigInt(i & 1023)) !== undefined) sink++;
  },
  { rounds: ROUNDS, seconds: Math.min(SECONDS, 0.5), clock },
);

console.log(
  `evidence recomputation, ${PATHWAYS} pathways × ${HOPS} hops × ${PERIODS} periods ` +
    `(${named} records named of ${store.size} held; median of ${ROUNDS} rounds, best in brackets):`,
);
console.log(
  `  ${ms.toFixed(3)} ms (${(recompute.best / 1000).toFixed(3)}) per recomputation, ` +
    `${Math.round(named / (ms / 1000)).toLocaleString('en')} records/s; ` +
    `${recompute.ratio.toFixed(1)} × ${BASELINE_NAME}`,
);
console.log(
  `  EvidenceCache.at while the window holds: ${(hit.median * 1000).toFixed(1)} ns (${(hit.best * 1000).toFixed(1)})`,
);
if (sink === -1) console.log(sink);
