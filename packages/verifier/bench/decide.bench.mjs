// Benchmark of one steering decision on the BUILT packages (`pnpm build` first), no signature:
// the evidence cached (an EvidenceCache hit), the report read from a realistic request with
// readReport (§4), the draw (§6.3, SHA-256), the rule (§6), the assembly (§7.1) and the manifest
// written (§8.1); then the same with the decision's digest (encodeDecision + SHA-256), which a
// server needs before it writes the manifest. Goal: ≤ 10 µs per decide at 32 pathways.
// SHA-256 uses the node backend (`@wai-steering/wire/node`, node:crypto). It sits in the
// verifier's package, the first whose dependencies hold every step (evidence, rule, manifest).
// Each decide is measured against the project's baseline (one raw node:crypto Ed25519 signature
// of 300 bytes) in the same rounds, with `@wai-steering/bench`.
//
//   node bench/decide.bench.mjs          (BENCH_ROUNDS, default 15; BENCH_SECONDS, default 0.2)
import { BASELINE_NAME, baselineSign, compare, measure, settings } from '@wai-steering/bench';
import { EvidenceCache, MemoryEvidenceStore } from '@wai-steering/evidence';
import { writeManifest } from '@wai-steering/manifest';
import { applyRule, assembleDecision, drawOf, readReport } from '@wai-steering/rule';
import {
  encodeDecision,
  encodeHopRecord,
  NO_CAPACITY_LIMIT,
  NOT_A_CLONE,
  useBackend,
} from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';

useBackend(nodeBackend);
const backend = nodeBackend;
const { rounds: ROUNDS, seconds: SECONDS, clock } = settings({ rounds: 15, seconds: 0.2 });
const HOPS = 4;
const PERIODS = 12;
const P = 10_000_000n;
const L = 2_000_000n;
const CLASSES = [4, 4, 5, 2, 3];

/** µs per call of `op(i)`: the best of ROUNDS rounds and the median (`@wai-steering/bench`). */
const usPer = (op) => measure(op, { rounds: ROUNDS, seconds: SECONDS, clock, warmup: 0 });

const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
const key = (p, h) => {
  const k = new Uint8Array(32);
  k[0] = p;
  k[1] = h;
  k[31] = 0x42;
  return k;
};

function setup(m) {
  const room = new Uint8Array(32).fill(0xaa);
  const policy = {
    room,
    signer: new Uint8Array(32).fill(1),
    period_us: P,
    window_us: P * BigInt(PERIODS),
    lag_us: L,
    basis: 1,
    floor: 1,
    latency_ceiling_ms: 150,
    min_buffer_ms: 4000,
    hysteresis_ppm: 50_000,
    ttl_s: 300,
    min_ttl_s: 30,
    flags: 0,
    initial: 0,
    tiers: [800_000n, 2_400_000n, 6_000_000n],
    server_uri: 'https://steer.example.com/v1/steer?room=7',
    reload_uri: 'https://steer.example.com/v1/steer?room=7',
    decision_uri: 'https://steer.example.com/v1/decisions/',
    pathways: Array.from({ length: m }, (_, p) => ({
      id: `cdn-${p}`,
      // every fourth pathway a clone of the one before it
      base: p % 4 === 3 ? p - 1 : NOT_A_CLONE,
      host: p % 4 === 3 ? `edge${p}.example.net` : '',
      params: p % 4 === 3 ? [{ name: 'token', value: 'abc' }] : [],
      top_tier: 2,
      latency_ms: p % 7 === 6 ? 200 : 40,
      capacity: p % 5 === 4 ? 100 : NO_CAPACITY_LIMIT,
      min_share_ppm: p < 2 ? 20_000 : 0,
      hops: Array.from({ length: HOPS }, (_, h) => ({
        key: key(p, h),
        place: h === HOPS - 1 ? 1 : 2,
      })),
    })),
  };
  const store = new MemoryEvidenceStore();
  for (let p = 0; p < m; p++) {
    for (let h = 0; h < HOPS; h++) {
      for (let k = 0; k < PERIODS + 2; k++) {
        const record = {
          room,
          hop: key(p, h),
          start: BigInt(k) * P,
          end: BigInt(k + 1) * P,
          sessions: 40,
          class: CLASSES[p % CLASSES.length],
          joules: BigInt(2_000_000 + ((p * 7919) % 1000) * 1000 + h),
          subscriber_us: [0n, 0n, 400_000_000n, 0n, 0n, 0n, 0n, 0n],
          tracks: [{ track: 1, kind: 1, direction: 2, bytes: 40_000_000n + BigInt(p * 1000) }],
        };
        store.add(record, backend.sha256(encodeHopRecord(record)));
      }
    }
  }
  const cache = new EvidenceCache(policy, store);
  const t = P * BigInt(PERIODS + 2) + L + 1234n;
  const policyDigest = new Uint8Array(32).fill(0x5d);
  const ids = policy.pathways.map((p) => p.id);
  const sessions = Array.from({ length: 64 }, (_, i) =>
    Uint8Array.from({ length: 16 }, (_, j) => (i * 37 + j * 11) & 0xff),
  );
  const requests = sessions.map((s, i) => {
    const session = `wai_session=${hex(s)}`;
    const c = ids[i % m];
    switch (i % 3) {
      case 0: // hls.js: RELOAD-URI then _HLS_pathway and _HLS_throughput
        return {
          protocol: 'hls',
          target: `/v1/steer?room=7&${session}&_HLS_pathway="${c}"&_HLS_throughput=${4_000_000 + i * 1000}`,
        };
      case 1: // dash.js: _DASH_pathway (quoted list) and _DASH_throughput
        return {
          protocol: 'dash',
          target: `/v1/steer?room=7&${session}&_DASH_pathway="${c},${ids[0]}"&_DASH_throughput=${5_000_000 + i},3000000`,
        };
      default: // dash.js with CMCD in the query (bl, mtp) and other keys
        return {
          protocol: 'dash',
          target: `/v1/steer?room=7&${session}&_DASH_pathway=${c}&CMCD=${encodeURIComponent(`bl=${3000 + i * 200},br=3200,d=4004,mtp=${25400 + i},ot=v,sid="6e2fb550-c457-11e9-bb97-0800200c9a66",su`)}`,
        };
    }
  });
  const loads = policy.pathways.map((_, p) => (p % 5 === 4 ? 100 : p * 3));
  return { policy, cache, t, policyDigest, ids, sessions, requests, loads };
}

const DIGEST = new Uint8Array(32).fill(0xc3);

console.log(
  'decide: EvidenceCache hit, readReport, draw (node SHA-256), rule, assembly, manifest; no signature',
);
console.log(
  `  ${HOPS} hops × ${PERIODS} periods per pathway; best of ${ROUNDS} rounds (median in brackets); ` +
    `the baseline: ${BASELINE_NAME}`,
);
for (const m of [3, 8, 32]) {
  const s = setup(m);
  s.cache.at(s.t); // the window's evidence, once
  const decide = (i, withDigest) => {
    const k = i & 63;
    const evidence = s.cache.at(s.t);
    const report = readReport(s.requests[k], s.ids);
    const fields = assembleDecision({
      signer: s.policy.signer,
      policy: s.policy,
      policyDigest: s.policyDigest,
      t: s.t,
      session: s.sessions[k],
      protocol: s.requests[k].protocol,
      report,
      evidence,
      loads: s.loads,
      backend,
    });
    const digest = withDigest ? backend.sha256(encodeDecision(fields)) : DIGEST;
    return writeManifest(s.policy, fields, digest);
  };
  for (let i = 0; i < 20_000; i++) decide(i, i & 1); // warm up
  const { plain, digested, baseline } = compare(
    baselineSign,
    { plain: (i) => decide(i, false), digested: (i) => decide(i, true) },
    { rounds: ROUNDS, seconds: SECONDS, clock, warmup: 0 },
  );
  const size = encodeDecision(
    assembleDecision({
      signer: s.policy.signer,
      policy: s.policy,
      policyDigest: s.policyDigest,
      t: s.t,
      session: s.sessions[0],
      protocol: 'hls',
      report: readReport(s.requests[0], s.ids),
      evidence: s.cache.at(s.t),
      loads: s.loads,
      backend,
    }),
  ).length;
  // The parts, each alone.
  const reports = s.requests.map((r) => readReport(r, s.ids));
  const evidence = s.cache.at(s.t);
  const partReport = usPer((i) => readReport(s.requests[i & 63], s.ids));
  const partDraw = usPer((i) => drawOf(s.policyDigest, s.sessions[i & 63], backend));
  const partRule = usPer((i) =>
    applyRule({
      policy: s.policy,
      figures: evidence.pathways,
      report: reports[i & 63],
      draw: (i * 7919) % 1_000_000,
      loads: s.loads,
    }),
  );
  const fieldsList = s.sessions.map((session, k) =>
    assembleDecision({
      signer: s.policy.signer,
      policy: s.policy,
      policyDigest: s.policyDigest,
      t: s.t,
      session,
      protocol: s.requests[k].protocol,
      report: reports[k],
      evidence,
      loads: s.loads,
      backend,
    }),
  );
  const partAssemble = usPer((i) =>
    assembleDecision({
      signer: s.policy.signer,
      policy: s.policy,
      policyDigest: s.policyDigest,
      t: s.t,
      session: s.sessions[i & 63],
      protocol: s.requests[i & 63].protocol,
      report: reports[i & 63],
      evidence,
      loads: s.loads,
      backend,
    }),
  );
  const partManifest = usPer((i) => writeManifest(s.policy, fieldsList[i & 63], DIGEST));
  console.log(
    `  ${String(m).padStart(2)} pathways: ${plain.best.toFixed(2)} µs per decide (${plain.median.toFixed(2)}); ` +
      `${digested.best.toFixed(2)} µs (${digested.median.toFixed(2)}) with the decision digest (${size} bytes before sig)`,
  );
  console.log(
    `      against the baseline (${baseline.median.toFixed(2)} µs): decide ${plain.ratio.toFixed(3)} ×, ` +
      `with the digest ${digested.ratio.toFixed(3)} ×`,
  );
  console.log(
    `      parts alone: readReport ${partReport.best.toFixed(2)} µs, draw ${partDraw.best.toFixed(2)} µs, ` +
      `applyRule (order cached: no; limits, w, steps, priority) ${partRule.best.toFixed(2)} µs, ` +
      `assembleDecision (draw + rule with the cached order + fields) ${partAssemble.best.toFixed(2)} µs, ` +
      `writeManifest ${partManifest.best.toFixed(2)} µs`,
  );
}
