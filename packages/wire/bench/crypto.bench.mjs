// Benchmark of the crypto backends of the BUILT package (`pnpm build` first): each backend's
// Ed25519 sign and strict verify as a ratio to raw node:crypto's, measured in the same rounds.
// Goals (companion C2 verification, node backend): verify ≥ 0.8 × raw, sign ≥ 0.9 × raw.
//
//   node bench/crypto.bench.mjs   (BENCH_ROUNDS, BENCH_SECONDS, BENCH_CLOCK, BENCH_NOBLE=0 to skip noble)
//
// The clock is this process's CPU time by default (BENCH_CLOCK=wall for wall time): on a shared,
// loaded machine it is the steadier of the two, and for single-threaded work like this both say
// the same on an idle one.
import {
  createPrivateKey,
  createPublicKey,
  sign as rawSign,
  verify as rawVerify,
} from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { compare, fmt, settings, table } from '@wai-steering/bench';

const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * Runs the crypto benchmark. Returns the operations per second (from the median rounds) and
 * each backend's ratio to raw node:crypto. `dist` is the URL of the built package's directory.
 */
export async function benchCrypto({
  rounds,
  seconds,
  noble = process.env.BENCH_NOBLE !== '0',
  messageLength = 256,
  dist = new URL('../dist/', import.meta.url),
  log = console.log,
} = {}) {
  const run = settings({ rounds: 5, seconds: 1, clock: 'cpu' });
  rounds ??= run.rounds;
  seconds ??= run.seconds;
  const { clock } = run;
  const { nobleBackend } = await import(new URL('index.js', dist).href);
  const { nodeBackend } = await import(new URL('node.js', dist).href);

  const secret = new Uint8Array(32).map((_, i) => (i * 37 + 11) & 0xff);
  const message = new Uint8Array(messageLength).map((_, i) => (i * 101 + 7) & 0xff);
  const privateKey = createPrivateKey({
    key: Buffer.concat([PKCS8_PREFIX, secret]),
    format: 'der',
    type: 'pkcs8',
  });
  const publicKeyObject = createPublicKey(privateKey);
  const publicKey = nodeBackend.publicKey(secret);
  const signature = nodeBackend.sign(secret, message);
  if (nobleBackend.verify(publicKey, message, signature) !== 'ok') throw new Error('bench: setup');
  if (!rawVerify(null, message, publicKeyObject, signature)) throw new Error('bench: setup');

  let sink = 0;
  const verifyWith = (backend) => () => {
    if (backend.verify(publicKey, message, signature) !== 'ok') throw new Error('verify');
  };
  const signWith = (backend) => () => {
    sink ^= backend.sign(secret, message)[0];
  };
  const backends = noble ? { node: nodeBackend, noble: nobleBackend } : { node: nodeBackend };
  log(
    `crypto bench: node ${process.version}, OpenSSL ${process.versions.openssl}, ` +
      `${messageLength}-byte message, ${rounds} rounds of ${seconds}s (${clock} time) per figure`,
  );
  const opts = { rounds, seconds, clock, batch: 8, warmup: 0.3 };
  const sign = compare(
    () => {
      sink ^= rawSign(null, message, privateKey)[0];
    },
    Object.fromEntries(Object.entries(backends).map(([k, b]) => [k, signWith(b)])),
    opts,
  );
  const verify = compare(
    () => {
      if (!rawVerify(null, message, publicKeyObject, signature)) throw new Error('raw verify');
    },
    Object.fromEntries(Object.entries(backends).map(([k, b]) => [k, verifyWith(b)])),
    opts,
  );
  // A ratio here is raw µs / backend µs: how much of raw's speed the backend keeps.
  const perSecond = {
    'raw sign': 1e6 / sign.baseline.median,
    'raw verify': 1e6 / verify.baseline.median,
  };
  const ratios = {};
  for (const name of Object.keys(backends)) {
    perSecond[`${name} sign`] = 1e6 / sign[name].median;
    perSecond[`${name} verify`] = 1e6 / verify[name].median;
    ratios[`${name} sign`] = 1 / sign[name].ratio;
    ratios[`${name} verify`] = 1 / verify[name].ratio;
  }
  const goals = { 'node sign': 0.9, 'node verify': 0.8 };
  const lines = [];
  for (const op of ['verify', 'sign']) {
    lines.push([`raw node:crypto ${op}`, fmt.int(perSecond[`raw ${op}`]), '1.000', '']);
    for (const name of Object.keys(backends)) {
      const key = `${name} ${op}`;
      const goal = goals[key];
      const verdict =
        goal === undefined ? '' : `${ratios[key] >= goal ? 'met' : 'NOT MET'} (≥ ${goal})`;
      const label = op === 'verify' ? `${name} strict verify` : `${name} sign`;
      lines.push([label, fmt.int(perSecond[key]), ratios[key].toFixed(3), verdict]);
    }
  }
  table(
    "crypto (median of rounds; ratio to raw node:crypto, median of the rounds' ratios)",
    ['operation', 'ops/s', '× raw', 'goal'],
    lines,
    log,
  );
  if (sink === -1) log(sink);
  return { clock, perSecond, ratios, goals };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await benchCrypto();
}
