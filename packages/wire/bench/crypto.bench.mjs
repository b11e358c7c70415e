// Benchmark of the crypto backends of the BUILT package (`pnpm build` first): raw node:crypto
// Ed25519 sign and verify, then each backend's, in one run, with the ratios to raw.
// Goals (companion C2 verification, node backend): verify ≥ 0.8 × raw, sign ≥ 0.9 × raw.
//
//   node bench/crypto.bench.mjs            (BENCH_ROUNDS, BENCH_SECONDS, BENCH_NOBLE=0 to skip noble)
//
// Rounds are interleaved (raw, backend, raw, backend, …) so that a machine whose load changes
// during the run penalises both sides alike; each figure is the median of the rounds, and each
// ratio the median of the per-round ratios. The clock is this process's CPU time by default
// (BENCH_CLOCK=wall for wall time): on a shared, loaded machine it is the steadier of the two,
// and for single-threaded work like this both say the same on an idle one.
import {
  createPrivateKey,
  createPublicKey,
  sign as rawSign,
  verify as rawVerify,
} from 'node:crypto';
import { pathToFileURL } from 'node:url';

const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
}

const CLOCKS = {
  wall: () => performance.now(),
  cpu: () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  },
};

/** Operations per second of `op` over about `seconds` of `clock`, in batches of `batch`. */
function rate(op, seconds, batch, clock) {
  const limit = seconds * 1000;
  let n = 0;
  const start = clock();
  let elapsed = 0;
  do {
    for (let i = 0; i < batch; i++) op();
    n += batch;
    elapsed = clock() - start;
  } while (elapsed < limit);
  return (n * 1000) / elapsed;
}

function fmt(x) {
  return Math.round(x).toLocaleString('en-US').padStart(9);
}

/**
 * Runs the crypto benchmark. Returns the medians (operations per second) and the ratios to raw
 * node:crypto. `dist` is the URL of the built package's directory (default `../dist/`).
 */
export async function benchCrypto({
  rounds = Number(process.env.BENCH_ROUNDS ?? 5),
  seconds = Number(process.env.BENCH_SECONDS ?? 1),
  warmup = 0.5,
  noble = process.env.BENCH_NOBLE !== '0',
  messageLength = 256,
  clock = process.env.BENCH_CLOCK === 'wall' ? 'wall' : 'cpu',
  dist = new URL('../dist/', import.meta.url),
  log = console.log,
} = {}) {
  const now = CLOCKS[clock];
  if (now === undefined) throw new Error(`bench: unknown clock ${clock}`);
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
  const ops = {
    'raw sign': () => {
      sink ^= rawSign(null, message, privateKey)[0];
    },
    'raw verify': () => {
      if (!rawVerify(null, message, publicKeyObject, signature)) throw new Error('raw verify');
    },
    'node sign': () => {
      sink ^= nodeBackend.sign(secret, message)[0];
    },
    'node verify': () => {
      if (nodeBackend.verify(publicKey, message, signature) !== 'ok') throw new Error('verify');
    },
    'noble sign': () => {
      sink ^= nobleBackend.sign(secret, message)[0];
    },
    'noble verify': () => {
      if (nobleBackend.verify(publicKey, message, signature) !== 'ok') throw new Error('verify');
    },
  };
  const pairs = [
    ['raw sign', 'node sign'],
    ['raw verify', 'node verify'],
    ...(noble
      ? [
          ['raw sign', 'noble sign'],
          ['raw verify', 'noble verify'],
        ]
      : []),
  ];

  log(
    `crypto bench: node ${process.version}, OpenSSL ${process.versions.openssl}, ` +
      `${messageLength}-byte message, ${rounds} rounds of ${seconds}s (${clock} time) per figure`,
  );
  for (const name of Object.keys(ops)) {
    if (noble || !name.startsWith('noble')) rate(ops[name], warmup, 8, now);
  }

  const samples = Object.fromEntries(Object.keys(ops).map((k) => [k, []]));
  const ratioSamples = Object.fromEntries(pairs.map(([, b]) => [b, []]));
  for (let r = 0; r < rounds; r++) {
    for (const [raw, mine] of pairs) {
      // Alternate which side goes first, so that neither always follows the other.
      const order = r % 2 === 0 ? [raw, mine] : [mine, raw];
      const got = {};
      for (const name of order) {
        const batch = name.startsWith('noble') ? 4 : 64;
        got[name] = rate(ops[name], mine.startsWith('noble') ? seconds / 2 : seconds, batch, now);
        samples[name].push(got[name]);
      }
      ratioSamples[mine].push(got[mine] / got[raw]);
    }
  }

  const perSecond = {};
  for (const [name, xs] of Object.entries(samples)) if (xs.length > 0) perSecond[name] = median(xs);
  const ratios = {};
  for (const [name, xs] of Object.entries(ratioSamples)) ratios[name] = median(xs);
  const goals = { 'node sign': 0.9, 'node verify': 0.8 };

  for (const [name, ops_] of Object.entries(perSecond)) {
    const ratio = ratios[name];
    const goal = goals[name];
    const extra =
      ratio === undefined
        ? ''
        : `  ${ratio.toFixed(3)} × raw${goal === undefined ? '' : ratio >= goal ? `  (goal ≥ ${goal}: met)` : `  (goal ≥ ${goal}: NOT MET)`}`;
    log(`  ${name.padEnd(13)} ${fmt(ops_)} /s${extra}`);
  }
  if (sink === -1) log(sink);
  return { clock, perSecond, ratios, goals };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await benchCrypto();
}
