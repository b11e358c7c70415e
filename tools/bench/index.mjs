// The harness of the packages' benchmarks. A benchmark is not a test: it prints figures, and
// ratios to a baseline measured in the same run, and nothing fails on a number.
//
// A figure is measured in rounds of about `seconds` each; the best round (other load on the
// machine only ever adds time) and the median are reported. A ratio is taken round by round
// against a baseline run in the same round, the two in alternating order, so that a machine
// whose load changes during the run moves both alike; the ratio reported is the median of the
// rounds' ratios.
//
// Settings: BENCH_ROUNDS, BENCH_SECONDS (each benchmark gives its defaults), BENCH_CLOCK=wall|cpu.
import { createPrivateKey, sign } from 'node:crypto';

/** The clocks, in milliseconds: wall time, or this process's CPU time (user + system). */
export const CLOCKS = Object.freeze({
  wall: () => performance.now(),
  cpu: () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  },
});

/** The settings of a run: the defaults given, overridden by the environment. */
export function settings(defaults = {}) {
  const env = process.env;
  const num = (name, fallback) => {
    const v = env[name];
    if (v === undefined || v === '') return fallback;
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`bench: ${name} must be a positive number`);
    return n;
  };
  const clock = env.BENCH_CLOCK ?? defaults.clock ?? 'wall';
  if (!(clock in CLOCKS)) throw new Error(`bench: BENCH_CLOCK must be wall or cpu, not ${clock}`);
  return {
    rounds: Math.round(num('BENCH_ROUNDS', defaults.rounds ?? 7)),
    seconds: num('BENCH_SECONDS', defaults.seconds ?? 0.5),
    clock,
  };
}

/** The median of numbers (the mean of the two middle ones for an even count). */
export function median(xs) {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * One round: microseconds per call of `op(i)` over about `seconds` of `clock`, called in batches
 * of `batch` (the clock read once a batch).
 */
export function usPerCall(op, { seconds = 0.5, batch = 256, clock = 'wall' } = {}) {
  const now = CLOCKS[clock];
  const limit = seconds * 1000;
  let n = 0;
  const start = now();
  let elapsed = 0;
  do {
    for (let k = 0; k < batch; k++) op(n + k);
    n += batch;
    elapsed = now() - start;
  } while (elapsed < limit);
  return (elapsed * 1000) / n;
}

/** Calls `op(i)` for about `seconds`, to warm it up. */
export function warm(op, seconds = 0.2, batch = 64) {
  usPerCall(op, { seconds, batch });
}

/** `{ best, median, rounds }` in µs per call of `op(i)`, over `rounds` rounds. */
export function measure(op, options = {}) {
  const { rounds = 7, warmup = 0.2 } = options;
  if (warmup > 0) warm(op, warmup, options.batch ?? 64);
  const us = [];
  for (let r = 0; r < rounds; r++) us.push(usPerCall(op, options));
  return { best: Math.min(...us), median: median(us), rounds: us };
}

/**
 * Each of `ops` against `baseline`, round by round in alternating order. For each op:
 * `{ best, median }` µs per call, `ratio`: the median of the rounds' (op µs / baseline µs), how
 * many baselines one call costs, and `ratios`: each round's. The baseline's own figures under
 * `baseline`.
 */
export function compare(baseline, ops, options = {}) {
  const { rounds = 7, warmup = 0.2 } = options;
  const names = Object.keys(ops);
  const all = { baseline, ...ops };
  if (warmup > 0) for (const op of Object.values(all)) warm(op, warmup, options.batch ?? 64);
  const us = Object.fromEntries(Object.keys(all).map((k) => [k, []]));
  const ratios = Object.fromEntries(names.map((k) => [k, []]));
  for (let r = 0; r < rounds; r++) {
    for (const name of names) {
      const order = r % 2 === 0 ? ['baseline', name] : [name, 'baseline'];
      const got = {};
      for (const k of order) got[k] = usPerCall(all[k], options);
      us.baseline.push(got.baseline);
      us[name].push(got[name]);
      ratios[name].push(got[name] / got.baseline);
    }
  }
  const out = {};
  for (const [k, xs] of Object.entries(us)) {
    out[k] = { best: Math.min(...xs), median: median(xs) };
    if (k !== 'baseline') {
      out[k].ratio = median(ratios[k]);
      out[k].ratios = ratios[k];
    }
  }
  return out;
}

const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SIGN_KEY = createPrivateKey({
  key: Buffer.concat([PKCS8_PREFIX, Buffer.alloc(32, 7)]),
  format: 'der',
  type: 'pkcs8',
});
const SIGN_MESSAGE = Buffer.alloc(300, 7);

/**
 * The project's baseline: one Ed25519 signature of 300 bytes by raw `node:crypto`, what a minimal
 * signing server pays per request (the server's benchmark runs the same as its server (a)).
 * A figure as a number of these is steadier across machines than microseconds.
 */
export const BASELINE_NAME = 'one raw node:crypto Ed25519 signature of 300 bytes';
export function baselineSign() {
  return sign(null, SIGN_MESSAGE, SIGN_KEY);
}

/** Formatting: µs with two decimals, a count per second with thousands separators. */
export const fmt = Object.freeze({
  us: (x) => `${x.toFixed(2)} µs`,
  perSecond: (us) => `${Math.round(1e6 / us).toLocaleString('en-US')}/s`,
  ratio: (x) => `${x.toFixed(3)} ×`,
  int: (x) => Math.round(x).toLocaleString('en-US'),
});

/** A table of rows of strings, the first column left-aligned, the others right-aligned. */
export function table(title, header, lines, log = console.log) {
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => String(l[i]).length)));
  const row = (cells) =>
    cells
      .map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i])))
      .join('  ');
  log(`\n${title}`);
  log(`  ${row(header)}`);
  log(`  ${widths.map((w) => '-'.repeat(w)).join('  ')}`);
  for (const l of lines) log(`  ${row(l)}`);
}
