/**
 * The embedded store's WAL checkpointer: a worker thread with its own connection (WAL allows it
 * beside the writer), so that copying pages into the database and its fsync stay off the event
 * loop.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** The checkpointer's source: a worker thread with its own connection. */
const CHECKPOINTER = `
const { parentPort, workerData } = require('node:worker_threads');
let db;
try {
  const Database = require(workerData.sqlite);
  db = new Database(workerData.path);
  db.pragma('busy_timeout = 5000');
} catch (e) {
  parentPort.postMessage({ failed: String(e && e.message) });
  process.exit(0);
}
const { performance } = require('node:perf_hooks');
const run = () => {
  // Its times on the process's clock (ms since the epoch), for the traces (src/trace.ts).
  const start = performance.timeOrigin + performance.now();
  let frames = 0;
  try {
    const r = db.pragma('wal_checkpoint(PASSIVE)')[0];
    frames = r === undefined ? 0 : r.log;
    // A writer that never pauses keeps some frames uncopied at every passive checkpoint, and a WAL
    // starts again from its beginning only after one that copied them all: so, past
    // restartFrames, one that waits for the writer between two commits and copies the rest
    // (little, after the passive one), after which the next commit writes from the WAL's start.
    // It holds the write lock while it waits for the readers: tried only when the passive one
    // copied every frame (no reader holds an older snapshot, as a long export would), and given
    // up after 10 ms, so that commits never wait on it for longer.
    if (r !== undefined && r.log >= workerData.restartFrames && r.checkpointed === r.log) {
      db.pragma('busy_timeout = 10');
      try { db.pragma('wal_checkpoint(RESTART)'); } finally { db.pragma('busy_timeout = 5000'); }
    }
  } catch {}
  parentPort.postMessage({ ran: { start, end: performance.timeOrigin + performance.now(), frames } });
};
parentPort.on('message', () => {
  clearInterval(timer);
  try { db.close(); } catch {}
  process.exit(0);
});
const timer = setInterval(run, workerData.intervalMs);
`;

/**
 * Past this many frames the checkpointer restarts the WAL (16 384: 64 MiB of 4 KiB pages), so
 * that its file stays about that size under a steady load.
 */
export const WAL_RESTART_FRAMES = 16_384;

/**
 * Past this size the WAL is checkpointed inline, and its file truncated, whatever the worker
 * managed (a file restarted keeps its size: truncated, it is not found past the limit again).
 */
export const WAL_LIMIT = 256 * 1024 * 1024;

/** Starts the checkpointer of the store at `path`: every 250 ms, restarting past `restartFrames`. */
export function startCheckpointer(path: string, restartFrames: number): Worker {
  return new Worker(CHECKPOINTER, {
    eval: true,
    workerData: {
      sqlite: createRequire(import.meta.url).resolve('better-sqlite3'),
      path,
      intervalMs: 250,
      restartFrames,
    },
  });
}
