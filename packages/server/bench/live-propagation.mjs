// Live policy across instances (not a test): two instances on one PostgreSQL (a throwaway cluster
// started here), live capacity on. Each round moves the room clock to a new period and posts a
// site report to instance A that calls for a new policy; it measures the time from A's answer
// (the policy signed and written to the store) until instance B decides under the same policy
// (its notification, its read of the policy and the reports, its checks). The baseline is the
// POST /capacity round trip at A in the same run, which includes A's own signing and claim.
//
//   node packages/server/bench/live-propagation.mjs [rounds]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { base64url, CompactSign, importJWK } from 'jose';
import { loadConfig, startServer } from '../dist/index.js';
import { setupDemo, startPostgres } from '../dist/testkit.js';

const ROUNDS = Number(process.argv[2] ?? 40);
const hex = (b) => Buffer.from(b).toString('hex');

const dir = mkdtempSync(join(tmpdir(), 'wai-live-bench-'));
const cluster = await startPostgres();
const servers = [];
try {
  const url = await cluster.createDatabase('live');
  const setup = setupDemo(dir, { port: 8080, periodMs: 2000, budgets: false });
  writeFileSync(join(dir, 'session.secret'), Buffer.alloc(32, 7));
  const base = loadConfig(setup.configPath);
  const P = setup.policy.period_us;
  let now = ((BigInt(Date.now()) * 1000n) / P) * P + P / 10n;
  const clock = () => now;
  for (let i = 0; i < 2; i++) {
    servers.push(
      await startServer(
        {
          ...base,
          listen: { host: '127.0.0.1', port: 0 },
          store: { synchronous: 'normal', create: true, checkTimeout: 0, url },
          sessions: { ...base.sessions, secret: join(dir, 'session.secret') },
          live: { pathways: 'all', capacityThresholdPpm: 0, latencyThresholdMs: 0, maxAhead: 5000 },
          instances: { heartbeat: 250, dropAfter: 1000 },
        },
        { clock, trustClock: true },
      ),
    );
  }
  const [a, b] = servers;
  const hop = setup.hops.find((h) => h.name === 'cdn-b-edge');
  const key = await importJWK(
    {
      kty: 'OKP',
      crv: 'Ed25519',
      x: base64url.encode(hop.key.publicKey),
      d: base64url.encode(hop.key.secretKey),
    },
    'EdDSA',
  );
  const post = [];
  const spread = [];
  let overtaken = 0;
  for (let r = 0; r < ROUNDS; r++) {
    now = (now / P + 1n) * P + P / 10n;
    const jws = await new CompactSign(
      new TextEncoder().encode(
        JSON.stringify({
          room: hex(setup.roomId),
          pathway: 'cdn-b',
          gas: 1 + (r % 2),
          t: String(now),
          expires: String(now + 60_000_000n),
          window_us: '1000000',
        }),
      ),
    )
      .setProtectedHeader({ alg: 'EdDSA', kid: hex(hop.key.publicKey) })
      .sign(key);
    const t0 = performance.now();
    const res = await fetch(`${a.url}/capacity`, { method: 'POST', body: jws });
    const body = await res.json();
    const t1 = performance.now();
    if (res.status !== 201) throw new Error(`round ${r}: ${res.status} ${JSON.stringify(body)}`);
    if (body.policy === undefined) {
      // B's read of the store (each second) took the report first, signed, and A took B's
      // policy: correct, one policy for the period, but not this measurement.
      overtaken++;
      continue;
    }
    const want = hex(a.engine.policyDigest);
    while (hex(b.engine.policyDigest) !== want) {
      if (performance.now() - t1 > 5000) throw new Error(`round ${r}: B did not follow`);
      await new Promise((x) => setImmediate(x));
    }
    post.push(t1 - t0);
    spread.push(performance.now() - t1);
  }
  const q = (xs, p) =>
    [...xs].sort((x, y) => x - y)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
  const row = (name, xs) =>
    `${name.padEnd(34)} median ${q(xs, 0.5).toFixed(2)} ms   p95 ${q(xs, 0.95).toFixed(2)} ms   max ${Math.max(...xs).toFixed(2)} ms`;
  console.log(
    `${ROUNDS} rounds: ${post.length} policies signed at A and followed by B, ${overtaken} signed by B first (its read of the store) and taken by A`,
  );
  console.log(row('POST /capacity at A (baseline)', post));
  console.log(row('A answered → B decides under it', spread));
  console.log(`ratio (median): ${(q(spread, 0.5) / q(post, 0.5)).toFixed(2)} × the baseline`);
} finally {
  for (const s of servers.reverse()) await s.close().catch(() => {});
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
}
