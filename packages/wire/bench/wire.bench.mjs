// Benchmark of the record codecs of the BUILT package (`pnpm build` first): records read per
// second and written (encoded) per second, for a policy of 32 pathways of 4 hops each and a
// per-hop record of 8 tracks; then, when `crypto.bench.mjs` sits beside this file, the crypto
// backends (strict verify and sign, each as a ratio to raw node:crypto), so one run prints all.
//
//   node bench/wire.bench.mjs        (BENCH_ROUNDS, BENCH_SECONDS; BENCH_CRYPTO=0 skips crypto)
//
// Each figure is the median of the rounds, each measured against the project's baseline (one raw
// node:crypto Ed25519 signature) in the same round, in alternating order (`@wai-steering/bench`).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BASELINE_NAME, baselineSign, compare, fmt, settings, table } from '@wai-steering/bench';

const DIST = new URL('../dist/index.js', import.meta.url);
if (!existsSync(fileURLToPath(DIST))) {
  console.error('wire bench: ../dist/index.js is missing; run `pnpm build` in packages/wire first');
  process.exit(1);
}
const wire = await import(DIST.href);
const {
  nobleBackend,
  encodePolicy,
  readPolicy,
  signPolicy,
  encodeHopRecord,
  readHopRecord,
  signHopRecord,
  NOT_A_CLONE,
} = wire;

const { rounds: ROUNDS, seconds: SECONDS, clock } = settings({ rounds: 5, seconds: 1 });

function bytes32(seed) {
  const b = new Uint8Array(32);
  for (let i = 0; i < 32; i++) b[i] = (seed * 131 + i * 17 + 5) & 0xff;
  return b;
}

function secretKey(seed) {
  const b = new Uint8Array(32);
  for (let i = 0; i < 32; i++) b[i] = (seed * 37 + i * 11 + 1) & 0xff;
  return b;
}

// A policy of 32 pathways (16 of the content description, 16 clones with a host and params),
// each of 4 hops (1 edge, 3 interior).
const steer = secretKey(3);
const policyFields = {
  room: bytes32(1),
  signer: nobleBackend.publicKey(steer),
  period_us: 2_000_000n,
  window_us: 60_000_000n,
  lag_us: 1_000_000n,
  basis: 1,
  floor: 1,
  latency_ceiling_ms: 120,
  min_buffer_ms: 6000,
  hysteresis_ppm: 50_000,
  ttl_s: 300,
  min_ttl_s: 10,
  flags: 0,
  initial: 0,
  tiers: [400_000n, 800_000n, 1_600_000n, 3_000_000n, 6_000_000n],
  server_uri: 'https://steer.example.com/v1/steer?room=main',
  reload_uri: 'https://steer.example.com/v1/steer?room=main&reload=1',
  decision_uri: 'https://steer.example.com/v1/decisions/',
  pathways: Array.from({ length: 32 }, (_, i) => {
    const clone = i >= 16;
    return {
      id: `pathway-${i}`,
      base: clone ? i - 16 : NOT_A_CLONE,
      host: clone ? `edge-${i}.cdn.example.com` : '',
      params: clone
        ? [
            { name: 'region', value: `eu-${i}` },
            { name: 'token', value: 'abc%2Fdef' },
          ]
        : [],
      top_tier: 4,
      latency_ms: 20 + i,
      capacity: 10_000,
      min_share_ppm: 10_000,
      hops: Array.from({ length: 4 }, (_, j) => ({
        key: bytes32(100 + i * 4 + j),
        place: j === 0 ? 1 : 2,
      })),
    };
  }),
};

const hop = secretKey(10);
const hopFields = {
  room: bytes32(1),
  hop: nobleBackend.publicKey(hop),
  start: 1_767_225_600_000_000n,
  end: 1_767_225_602_000_000n,
  sessions: 1200,
  class: 4,
  joules: 123_456_789_012n,
  subscriber_us: [0n, 10n, 2_000_000n, 3n, 0n, 0n, 0n, 1n],
  tracks: Array.from({ length: 8 }, (_, i) => ({
    track: i >> 1,
    kind: i < 6 ? 1 : 2,
    direction: (i & 1) + 1,
    bytes: BigInt(1_000_000 * (i + 1)),
  })),
};

const policyBytes = signPolicy(policyFields, steer, { backend: nobleBackend });
const hopBytes = signHopRecord(hopFields, hop, { backend: nobleBackend });
for (const [name, r] of [
  ['policy', readPolicy(policyBytes)],
  ['hop record', readHopRecord(hopBytes)],
]) {
  if (!r.ok) throw new Error(`wire bench: the ${name} does not read: ${r.refusal.message}`);
}

let sink = 0;
const ops = {
  'WSP1 read': () => {
    const r = readPolicy(policyBytes);
    sink ^= r.ok ? r.value.pathways.length : 1;
  },
  'WSP1 write': () => {
    sink ^= encodePolicy(policyFields).length;
  },
  'WMH1 read': () => {
    const r = readHopRecord(hopBytes);
    sink ^= r.ok ? r.value.tracks.length : 1;
  },
  'WMH1 write': () => {
    sink ^= encodeHopRecord(hopFields).length;
  },
};
const sizes = {
  'WSP1 read': policyBytes.length,
  'WSP1 write': policyBytes.length - 64,
  'WMH1 read': hopBytes.length,
  'WMH1 write': hopBytes.length - 64,
};

console.log(
  `wire bench: node ${process.version}, ${ROUNDS} rounds of ${SECONDS}s per figure; ` +
    `WSP1 of 32 pathways × 4 hops (${policyBytes.length} bytes), WMH1 of 8 tracks (${hopBytes.length} bytes)`,
);
const figures = compare(baselineSign, ops, {
  rounds: ROUNDS,
  seconds: SECONDS,
  clock,
  warmup: 0.3,
});
table(
  `records (median of rounds; × baseline: ${BASELINE_NAME})`,
  ['operation', 'records/s', 'µs/record', 'MB/s', '× baseline'],
  Object.keys(ops).map((name) => {
    const us = figures[name].median;
    return [
      name,
      fmt.int(1e6 / us),
      us.toFixed(2),
      (sizes[name] / us).toFixed(1),
      figures[name].ratio.toFixed(3),
    ];
  }),
);

// The crypto backends, from the other benchmark, when it is there.
const cryptoBench = new URL('./crypto.bench.mjs', import.meta.url);
if (process.env.BENCH_CRYPTO !== '0' && existsSync(fileURLToPath(cryptoBench))) {
  const mod = await import(cryptoBench.href);
  const run =
    typeof mod.benchCrypto === 'function'
      ? mod.benchCrypto
      : typeof mod.default === 'function'
        ? mod.default
        : undefined;
  if (run === undefined) {
    console.log('\ncrypto bench: crypto.bench.mjs exports no benchCrypto function; skipped');
  } else {
    console.log('');
    await run({ rounds: ROUNDS, seconds: SECONDS });
  }
} else if (process.env.BENCH_CRYPTO !== '0') {
  console.log('\ncrypto bench: bench/crypto.bench.mjs not found; skipped');
}

if (sink === -1) console.log(sink);
