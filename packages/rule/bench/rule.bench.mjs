// Benchmark of the client's report (§4) and the draw (§6.3) on the BUILT package (`pnpm build`
// first): reports read per second from hls.js, dash.js and CMCD requests, each against the
// project's baseline (one raw node:crypto Ed25519 signature of 300 bytes) in the same rounds
// (`@wai-steering/bench`). The whole decision (evidence, rule, assembly, manifest) is the
// verifier's benchmark, `packages/verifier/bench/decide.bench.mjs`.
//
//   node bench/rule.bench.mjs            (BENCH_ROUNDS, default 15; BENCH_SECONDS, default 0.2)
import { BASELINE_NAME, baselineSign, compare, settings } from '@wai-steering/bench';
import { useBackend } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { drawOf, readReport } from '../dist/index.js';

useBackend(nodeBackend);
const { rounds: ROUNDS, seconds: SECONDS, clock } = settings({ rounds: 15, seconds: 0.2 });
const options = { rounds: ROUNDS, seconds: SECONDS, clock, warmup: 0.1 };

console.log(
  `readReport (§4), reports per second (best of ${ROUNDS} rounds; median; × baseline: ${BASELINE_NAME}):`,
);
{
  const ids = Array.from({ length: 8 }, (_, p) => `cdn-${p}`);
  const session = 'wai_session=000102030405060708090a0b0c0d0e0f';
  const cases = {
    'hls.js': {
      protocol: 'hls',
      target: `/v1/steer?room=7&${session}&_HLS_pathway="cdn-3"&_HLS_throughput=5230000`,
    },
    'dash.js': {
      protocol: 'dash',
      target: `/v1/steer?room=7&${session}&_DASH_pathway="cdn-2,cdn-5"&_DASH_throughput=5230000,4100000`,
    },
    'CMCD query': {
      protocol: 'dash',
      target: `/v1/steer?${session}&_DASH_pathway=cdn-2&CMCD=${encodeURIComponent('bl=21300,br=3200,bs,d=4004,mtp=25400,ot=v,rtp=15000,sid="6e2fb550-c457-11e9-bb97-0800200c9a66",tb=6000')}`,
    },
    'CMCD header': {
      protocol: 'hls',
      target: `/v1/steer?${session}&_HLS_pathway="cdn-1"`,
      headers: {
        'cmcd-request':
          'bl=21300, dl=18500, mtp=(25400;ot=v 31200;ot=a), nor="../300kbps/segment35.m4v", su',
      },
    },
  };
  const ops = Object.fromEntries(
    Object.entries(cases).map(([name, request]) => [name, () => readReport(request, ids)]),
  );
  const figures = compare(baselineSign, ops, options);
  for (const name of Object.keys(cases)) {
    const us = figures[name];
    console.log(
      `  ${name.padEnd(12)} ${Math.round(1e6 / us.best)
        .toLocaleString('en')
        .padStart(
          10,
        )} /s (${us.best.toFixed(2)} µs; median ${us.median.toFixed(2)}; ${us.ratio.toFixed(3)} ×)`,
    );
  }
}

console.log('drawOf (§6.3), SHA-256 of the policy digest and the session (node backend):');
{
  const policyDigest = new Uint8Array(32).fill(0x5d);
  const sessions = Array.from({ length: 64 }, (_, i) =>
    Uint8Array.from({ length: 16 }, (_, j) => (i * 37 + j * 11) & 0xff),
  );
  const { draw } = compare(
    baselineSign,
    { draw: (i) => drawOf(policyDigest, sessions[i & 63], nodeBackend) },
    options,
  );
  console.log(
    `  ${draw.best.toFixed(2)} µs (median ${draw.median.toFixed(2)}; ${draw.ratio.toFixed(3)} ×)`,
  );
}
