// An audit of a server's decision log: 10,000 decisions over one window's records, verified
// with one shared cache, on each backend. Not a test: run with `pnpm bench`.
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

for (const [name, backend] of [
  ['node', nodeBackend],
  ['noble', nobleBackend],
] as const) {
  const cache = new VerifierCache();
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
  console.log(
    `  ${name.padEnd(5)} backend: ${(ms / 1000).toFixed(2)} s for ${N} decisions ` +
      `(${Math.round((N * 1000) / ms)} decisions/s), ${accepted} accepted, ` +
      `${cache.signaturesVerified} record signatures verified`,
  );
}
