// Resident memory of the session table with N live sessions, in a process of its own:
// `node bench/sessions-rss.mjs N` prints one JSON line.
import { randomBytes } from 'node:crypto';
import { SessionTable } from '../dist/testkit.js';

const n = Number(process.argv[2] ?? 1_000_000);
const settle = () => {
  globalThis.gc?.();
  return process.memoryUsage().rss;
};
const table = new SessionTable(['a', 'b', 'c'], { maxSessions: 100_000_000 });
const before = settle();
const pool = randomBytes(16 * 65_536);
const session = new Uint8Array(16);
for (let i = 0; i < n; i++) {
  // Distinct sessions: random bytes, the index in the first word.
  session.set(pool.subarray(16 * (i & 65_535), 16 * (i & 65_535) + 16));
  new DataView(session.buffer).setUint32(0, i, true);
  // Ends spread over 40 s of the room clock (µs), as TTL + grace spreads them.
  table.place(session, i % 3, 1_800_000_000_000_000 + Math.floor((i * 40_000_000) / n));
}
const after = settle();
process.stdout.write(
  `${JSON.stringify({ sessions: table.size, slots: table.slots, tableBytes: table.bytes, rssBefore: before, rssAfter: after })}\n`,
);
