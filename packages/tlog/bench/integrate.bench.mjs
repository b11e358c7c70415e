// Benchmark of the log's writer side on the BUILT package (`pnpm build` first): `integrate` of
// batches of 40-byte decision-log entries, one batch after the other as a server integrates them
// (each onto the state the one before returned), from a log of 65,000 entries (so that the
// batches complete level-0 and level-1 tiles), against raw node:crypto SHA-256 of the same
// leaves and nodes, measured in the same rounds. Goal: at least 20,000 entries a second on one
// core.
//
//   node bench/integrate.bench.mjs   (BENCH_ROUNDS, BENCH_SECONDS, BENCH_CLOCK)
//
// The SHA-256s, all in the same rounds: the package's own WebAssembly module (`wasmTreeHashing`:
// a batch's leaves, and each height's nodes, a call: what the server's writer uses), and three
// libraries, each a call a message, as well as each allows (the message copied after its prefix
// into one reused buffer, as `integrate` does for a backend without batch hashing): node:crypto's
// one-shot `hash` (OpenSSL), hash-wasm (WebAssembly; one hasher reused: `init`, `update`,
// `digest`) and @noble/hashes (portable JavaScript). Then the module's ratio to the fastest of
// them: the share of the integration's CPU it saves (the project keeps its own SHA-256 only
// while that is at least 20 %; docs/decisions.md).
//
// The raw baseline hashes what `integrate` hashes, counted over the whole run of batches by a
// backend that counts: each entry's 0x00 ‖ entry, and the node inputs (65 bytes) of a batch on
// average. Its ratio is raw µs / integrate µs: the share of raw hashing speed the writer keeps.
import * as nodeCrypto from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import { compare, fmt, median, settings, table } from '@wai-steering/bench';
import { nodeBackend } from '@wai-steering/wire/node';
import { createSHA256 } from 'hash-wasm';

const START = 65_000;
const BATCHES = [1, 10, 100, 1_000, 10_000];
/** Entries integrated before the run of batches starts again from the log of START entries. */
const RUN = 20_000;
const GOAL = 20_000;

const rawHash = nodeCrypto.hash
  ? (data) => nodeCrypto.hash('sha256', data, 'buffer')
  : (data) => nodeCrypto.createHash('sha256').update(data).digest();

/** The module's name in the tables, and the share of the integration's CPU it must save. */
const MODULE = 'WebAssembly module (batches)';
const KEEP_AT = 0.2;

/**
 * A backend whose SHA-256 is `one` (a message a call, its digest a Uint8Array of its own or one
 * copied at once), and whose batch hashing calls it for each message, copied after its prefix
 * into one reused buffer.
 */
function perMessage(one) {
  let message = new Uint8Array(65);
  const each = (prefix, data, count, length) => {
    const out = new Uint8Array(count * 32);
    if (message.length !== 1 + length) message = new Uint8Array(1 + length);
    message[0] = prefix;
    for (let i = 0; i < count; i++) {
      message.set(data.subarray(i * length, (i + 1) * length), 1);
      out.set(one(message), i * 32);
    }
    return out;
  };
  return {
    ...nodeBackend,
    sha256: (data) => new Uint8Array(one(data)),
    leafHashes: (entries, count, length) => each(0x00, entries, count, length),
    nodeHashes: (pairs, count) => each(0x01, pairs, count, 64),
  };
}

/** The libraries' SHA-256, each as a backend of `perMessage`. */
async function libraries() {
  const hasher = await createSHA256();
  return {
    'node:crypto (hash)': perMessage(rawHash),
    'hash-wasm': perMessage((data) => {
      hasher.init();
      hasher.update(data);
      return hasher.digest('binary');
    }),
    '@noble/hashes': perMessage(nobleSha256),
  };
}

export async function benchIntegrate({
  rounds,
  seconds,
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
  const libs = await libraries();

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
  const savings = [];
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
    const ops = { [MODULE]: chain(wasm) };
    for (const [name, backend] of Object.entries(libs)) ops[name] = chain(backend);
    const batchSize = n >= 1000 ? 1 : n >= 100 ? 4 : 64;
    const got = compare(baseline, ops, { rounds, seconds, clock, batch: batchSize, warmup: 0.3 });
    results[n] = { nodesPerBatch, raw: got.baseline };
    for (const [name, f] of Object.entries(got)) {
      if (name === 'baseline') continue;
      const perSecond = (n * 1e6) / f.best;
      results[n][name] = { ...f, perSecond };
      lines.push([
        `${fmt.int(n)} a batch, ${name}`,
        `${fmt.int(Math.round(perSecond))}/s (${fmt.int(Math.round((n * 1e6) / f.median))}/s)`,
        `${(1 / f.ratio).toFixed(3)} × raw`,
        `${fmt.int(n)} + ${fmt.int(nodesPerBatch)}`,
        perSecond >= GOAL ? 'met' : 'NOT met',
      ]);
    }
    // The module against the fastest library (by median): round by round, each against the raw
    // baseline of its own round, so the machine's load in a round moves both alike.
    const fastest = Object.keys(libs).reduce((x, y) => (got[y].median < got[x].median ? y : x));
    const perRound = got[MODULE].ratios.map((r, i) => r / got[fastest].ratios[i]);
    const saved = 1 - median(perRound);
    results[n].module = { fastest, ratio: median(perRound), saved, rounds: perRound };
    savings.push([
      `${fmt.int(n)} a batch`,
      fastest,
      `${median(perRound).toFixed(3)} ×`,
      `${(saved * 100).toFixed(1)} %`,
      perRound.map((r) => r.toFixed(3)).join(' '),
      saved >= KEEP_AT ? `≥ ${KEEP_AT * 100} %` : `< ${KEEP_AT * 100} %`,
    ]);
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
  table(
    `the WebAssembly module against the fastest library: its integrate µs / theirs (median of ${rounds} rounds), the integration's CPU it saves (kept while ≥ ${KEEP_AT * 100} % at the batches a server's writer integrates: hundreds to thousands of entries)`,
    ['entries', 'fastest library', 'module / library', 'CPU saved', 'rounds', 'saved'],
    savings,
    log,
  );
  return results;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await benchIntegrate();
}
