// An audit of a server's decision log: 10,000 decisions over one window's records, verified
// with one shared cache, on each backend, and the time per decision against the project's
// baseline (one raw node:crypto Ed25519 signature of 300 bytes, measured in the same run with
// `@wai-steering/bench`). Not a test: run with `pnpm bench`.
import { BASELINE_NAME, baselineSign, measure, settings } from '@wai-steering/bench';
import { nobleBackend } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { VerifierCache, verifyDecision } from '../src/index.js';
import { decide, makeWorld } from '../test/helpers/world.js';

const N = Number(process.env.AUDIT_DECISIONS ?? 10_000);
const world = makeWorld();
const made = [];
const t0 = performance.now();
for (let i = 0; i < N; i++) {
  const session = new Uint8Array(16);
  new DataView(session.buffer).setUint32(0, i, true);
  made.push(
    decide(world, { pathway: i % 3, throughput: 3_000_000n, buffer: 10_000n }, { session }),
  );
}
const built = performance.now() - t0;
console.log(
  `audit: ${N} decisions over ${world.records.length} records (built in ${(built / 1000).toFixed(1)} s)`,
);

const { clock } = settings({ rounds: 5, seconds: 0.2 });
const baselineUs = () => measure(baselineSign, { rounds: 5, seconds: 0.2, clock }).median;

for (const [name, backend] of [
  ['node', nodeBackend],
  ['noble', nobleBackend],
] as const) {
  const cache = new VerifierCache();
  const before = baselineUs();
  const start = performance.now();
  let accepted = 0;
  for (const m of made) {
    const outcome = verifyDecision(
      {
        room: world.room,
        keyLog: world.keyLog,
        policy: world.policy,
        decision: m.decision,
        records: world.records,
        manifest: m.manifest,
      },
      { backend, cache },
    );
    if (outcome.outcome === 'accept') accepted++;
  }
  const ms = performance.now() - start;
  const baseline = (before + baselineUs()) / 2;
  console.log(
    `  ${name.padEnd(5)} backend: ${(ms / 1000).toFixed(2)} s for ${N} decisions ` +
      `(${Math.round((N * 1000) / ms)} decisions/s), ${accepted} accepted, ` +
      `${cache.signaturesVerified} record signatures verified; ` +
      `${((ms * 1000) / N / baseline).toFixed(2)} × ${BASELINE_NAME} per decision`,
  );
}
