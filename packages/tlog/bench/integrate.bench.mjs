// Benchmark of the log's writer side on the BUILT package (`pnpm build` first): `integrate` of
// batches of 40-byte decision-log entries, one batch after the other as a server integrates them
// (each onto the state the one before returned), from a log of 65,000 entries (so that the
// batches complete level-0 and level-1 tiles), against raw node:crypto SHA-256 of the same
// leaves and nodes, measured in the same rounds. Goal: at least 20,000 entries a second on one
// core.
//
//   node bench/integrate.bench.mjs   (BENCH_ROUNDS, BENCH_SECONDS, BENCH_CLOCK, BENCH_NOBLE=0 to skip noble)
//
// Backends: node:crypto's (a call a hash), the same with `wasmTreeHashing` (a batch's leaves, and
// each height's nodes, a call), and noble's (portable JavaScript).
//
// The raw baseline hashes what `integrate` hashes, counted over the whole run of batches by a
// backend that counts: each entry's 0x00 ‖ entry, and the node inputs (65 bytes) of a batch on
// average. Its ratio is raw µs / integrate µs: the share of raw hashing speed the writer keeps.
import * as nodeCrypto from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { compare, fmt, settings, table } from '@wai-steering/bench';
import { nobleBackend } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';

const START = 65_000;
const BATCHES = [1, 10, 100, 1_000, 10_000];
/** Entries integrated before the run of batches starts again from the log of START entries. */
const RUN = 20_000;
const GOAL = 20_000;

const rawHash = nodeCrypto.hash
  ? (data) => nodeCrypto.hash('sha256', data, 'buffer')
  : (data) => nodeCrypto.createHash('sha256').update(data).digest();

export async function benchIntegrate({
  rounds,
  seconds,
  noble = process.env.BENCH_NOBLE !== '0',
  dist = new URL('../dist/', import.meta.url),
  log = console.log,
} = {}) {
  const run = settings({ rounds: 5, seconds: 1, clock: 'cpu' });
  rounds ??= run.rounds;
  seconds ??= run.seconds;
  const { clock } = run;
  const { emptyLogState, encodeEntry, integrate, wasmTreeHashing } = await import(
    new URL('index.js', dist).href
  );
  // The node backend with the WebAssembly batch hashing, as the server's writer has it.
  const wasm = { ...nodeBackend, ...(await wasmTreeHashing()) };

  const entryAt = (i) => {
    const digest = new Uint8Array(32);
    new DataView(digest.buffer).setUint32(0, i);
    digest.fill(i & 0xff, 4);
    return encodeEntry({ t: 1_767_225_600_000_000n + BigInt(i), digest });
  };
  const all = Array.from({ length: START + RUN }, (_, i) => entryAt(i));
  const state = integrate(emptyLogState(), all.slice(0, START), nodeBackend).state;

  log(
    `integrate bench: node ${process.version}, OpenSSL ${process.versions.openssl}, a log of ${START} ` +
      `entries of 40 bytes, ${rounds} rounds of ${seconds}s (${clock} time) per figure`,
  );
  const lines = [];
  const results = {};
  for (const n of BATCHES) {
    const batches = Array.from({ length: RUN / n }, (_, k) =>
      all.slice(START + k * n, START + (k + 1) * n),
    );
    // What the run of batches hashes: counted with a backend that counts.
    let nodes = 0;
    const counting = {
      ...nodeBackend,
      sha256(data) {
        if (data.length === 65 && data[0] === 1) nodes++;
        return nodeBackend.sha256(data);
      },
    };
    let s = state;
    for (const batch of batches) s = integrate(s, batch, counting).state;
    const nodesPerBatch = Math.round(nodes / batches.length);
    const leafInputs = batches[0].map((e) => Uint8Array.of(0, ...e));
    const nodeInputs = Array.from({ length: nodesPerBatch }, (_, i) => {
      const b = new Uint8Array(65).fill(i & 0xff);
      b[0] = 1;
      return b;
    });
    let sink = 0;
    const baseline = () => {
      for (const x of leafInputs) sink ^= rawHash(x)[0];
      for (const x of nodeInputs) sink ^= rawHash(x)[0];
    };
    // Each op integrates the next batch onto the state the last one returned.
    const chain = (backend) => {
      let at = 0;
      let current = state;
      return () => {
        if (at === batches.length) {
          at = 0;
          current = state;
        }
        current = integrate(current, batches[at++], backend).state;
      };
    };
    const ops = { node: chain(nodeBackend), 'node + wasmTreeHashing': chain(wasm) };
    if (noble) ops.noble = chain(nobleBackend);
    const batchSize = n >= 1000 ? 1 : n >= 100 ? 4 : 64;
    const got = compare(baseline, ops, { rounds, seconds, clock, batch: batchSize, warmup: 0.3 });
    results[n] = { nodesPerBatch, raw: got.baseline };
    for (const [name, f] of Object.entries(got)) {
      if (name === 'baseline') continue;
      const perSecond = (n * 1e6) / f.best;
      results[n][name] = { ...f, perSecond };
      lines.push([
        `${fmt.int(n)} a batch, ${name} backend`,
        `${fmt.int(Math.round(perSecond))}/s (${fmt.int(Math.round((n * 1e6) / f.median))}/s)`,
        `${(1 / f.ratio).toFixed(3)} × raw`,
        `${fmt.int(n)} + ${fmt.int(nodesPerBatch)}`,
        perSecond >= GOAL ? 'met' : 'NOT met',
      ]);
    }
    if (sink === 0.5) log('');
  }
  table(
    'integrate: entries a second, best (median), and raw SHA-256 µs / integrate µs',
    [
      'entries',
      'entries/s',
      'vs raw SHA-256',
      'hashes a batch (leaf + node)',
      `goal ${fmt.int(GOAL)}/s`,
    ],
    lines,
    log,
  );
  return results;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await benchIntegrate();
}
