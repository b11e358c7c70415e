// The re-draw churn of a policy rotation (not a test): §6.3's draw hashes the policy digest, so a
// new policy re-draws every session's band. For a population of sessions steered under one
// policy until steady, then under a policy that differs in one capacity only (never binding),
// the share of sessions whose first pathway changes at the rotation, by scenario.
//
//   node packages/server/bench/rotation-churn.mjs [sessions]
import { randomBytes } from 'node:crypto';
import { applyRule, drawOf } from '@wai-steering/rule';
import { nodeBackend } from '@wai-steering/wire/node';

const N = Number(process.argv[2] ?? 200_000);
const NO_LIMIT = 0xffff_ffff;

const pathway = (id, capacity, share) => ({
  id,
  base: 255,
  host: '',
  params: [],
  top_tier: 2,
  latency_ms: 40,
  capacity,
  min_share_ppm: share,
  hops: [],
});
const rulePolicy = (pathways) => ({
  latency_ceiling_ms: 100,
  floor: 0,
  tiers: [1_000_000n, 3_000_000n, 6_000_000n],
  min_buffer_ms: 0,
  hysteresis_ppm: 50_000,
  ttl_s: 10,
  min_ttl_s: 2,
  pathways,
});
const figure = (cls, joules, delivery) => ({ status: 0, class: cls, joules, delivery });
const NONE = { status: 1, class: 0, joules: 0n, delivery: 0n };

// The demo's shape: cdn-a ModelBased, cdn-b OnChipCounter (first by rank), the clone unmetered;
// bands 0, 10% and 5%.
const scenarios = [
  {
    name: "the demo's policy (bands on the first pathway and on an unmetered clone)",
    pathways: [
      pathway('cdn-a', NO_LIMIT, 0),
      pathway('cdn-b', 50_000, 100_000),
      pathway('cdn-b-east', NO_LIMIT, 50_000),
    ],
    figures: [figure(2, 76n, 1_000n), figure(4, 60n, 1_000n), NONE],
  },
  {
    name: 'bands on two pathways of the first one’s class, within the margin',
    pathways: [
      pathway('a', NO_LIMIT, 100_000),
      pathway('b', 50_000, 0),
      pathway('c', NO_LIMIT, 100_000),
    ],
    figures: [figure(4, 1_020n, 1_000n), figure(4, 1_000n, 1_000n), figure(4, 1_030n, 1_000n)],
  },
  {
    name: 'no bands',
    pathways: [pathway('a', NO_LIMIT, 0), pathway('b', 50_000, 0), pathway('c', NO_LIMIT, 0)],
    figures: [figure(2, 76n, 1_000n), figure(4, 60n, 1_000n), NONE],
  },
];

const digestA = new Uint8Array(randomBytes(32));
const digestB = new Uint8Array(randomBytes(32)); // the rotated policy: another digest
const loads = [1_000, 1_000, 1_000];
const report = (c) => ({ pathway: c, throughput: 5_000_000n, buffer: 20_000n });

for (const s of scenarios) {
  const before = rulePolicy(s.pathways);
  // One capacity changed (and not binding): 50 000 → 40 000.
  const after = rulePolicy(s.pathways.map((p, i) => (i === 1 ? { ...p, capacity: 40_000 } : p)));
  let changed = 0;
  let inBandBefore = 0;
  let inBandAfter = 0;
  for (let i = 0; i < N; i++) {
    const session = new Uint8Array(randomBytes(16));
    const d1 = drawOf(digestA, session, nodeBackend);
    // Steady under the old policy: first request (no report), then one that reports it.
    const first = applyRule({
      policy: before,
      figures: s.figures,
      report: report(null),
      draw: d1,
      loads,
    }).first;
    const steady = applyRule({
      policy: before,
      figures: s.figures,
      report: report(first),
      draw: d1,
      loads,
    });
    const d2 = drawOf(digestB, session, nodeBackend);
    const rotated = applyRule({
      policy: after,
      figures: s.figures,
      report: report(steady.first),
      draw: d2,
      loads,
    });
    if (steady.reason === 3) inBandBefore++;
    if (rotated.reason === 3) inBandAfter++;
    if (rotated.first !== steady.first) changed++;
  }
  const pct = (n) => `${((100 * n) / N).toFixed(2)}%`;
  console.log(`${s.name}:`);
  console.log(
    `  sessions ${N}, placed by a band before ${pct(inBandBefore)}, after ${pct(inBandAfter)}`,
  );
  console.log(`  first pathway changed at the rotation: ${changed} (${pct(changed)})`);
}
