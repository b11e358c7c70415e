// The session table's rebuild at start, in a process of its own (`rebuild.bench.mjs`):
// `node --expose-gc bench/rebuild-child.mjs STORE NOW_US MODE` prints one JSON line. MODE
// `rebuild`: the decisions of the store replayed and the table seeded (`rebuildSessions`, as a
// server does at start); `read`: the same decisions only read from the store (the baseline).
import { SqliteStore } from '../dist/index.js';
import { rebuildSessions, SessionTable } from '../dist/testkit.js';

const [path, nowArg, mode] = process.argv.slice(2);
const now = BigInt(nowArg);
const settle = () => {
  globalThis.gc?.();
  return process.memoryUsage().rss;
};
const store = new SqliteStore(path, { checkpoint: 'inline' });
const rssBefore = settle();
let rssPeak = rssBefore;
const sample = () => {
  const rss = process.memoryUsage().rss;
  if (rss > rssPeak) rssPeak = rss;
};
const started = process.hrtime.bigint();
const cpu0 = process.cpuUsage();
let out;
if (mode === 'read') {
  let decisions = 0;
  for await (const page of store.readDecisions(now - 21_000_000n, (1n << 64n) - 1n)) {
    decisions += page.length;
    sample();
    await new Promise((r) => setImmediate(r));
  }
  out = { decisions };
} else {
  const sessions = new SessionTable(['cdn-a', 'cdn-b', 'cdn-b-east'], { maxSessions: 8_000_000 });
  const r = await rebuildSessions({
    store,
    sessions,
    graceS: 10,
    now: () => now,
    mine: () => true,
    pause: () => {
      sample();
      return new Promise((r) => setImmediate(r));
    },
  });
  out = {
    decisions: r.decisions,
    sessions: r.sessions,
    loads: Array.from(sessions.loadsAt(Number(now))),
    tableBytes: sessions.bytes,
    keep: sessions.size,
  };
}
const ms = Number(process.hrtime.bigint() - started) / 1e6;
const cpu = process.cpuUsage(cpu0);
const cpuMs = (cpu.user + cpu.system) / 1000;
sample();
const rssAfter = settle();
await store.close();
process.stdout.write(
  `${JSON.stringify({ mode, ms, cpuMs, rssBefore, rssPeak, rssAfter, ...out })}\n`,
);
