/**
 * `wai-steer serve --workers N`: N worker processes on one machine (`node:cluster`), sharing the
 * listening socket (the primary hands each connection to a worker), the store (SQLite in WAL
 * mode across processes, or PostgreSQL) and the loads. This is the primary's side: it forks the
 * workers, relays their loads (`LoadsHub`: each worker is answered with the sum of the others')
 * and the records they store (a SQLite store has no notifications), and forks a worker again
 * when one dies. A decision a worker acknowledged is in the store (its manifest is sent after
 * its commit), so a worker's death loses none. Each worker has a place (`WAI_WORKER_SLOT`, of
 * `WAI_WORKERS`), which the worker forked again when one dies takes: it rebuilds the dead one's
 * sessions from the store (`engine/rebuild.ts`), and the others count the dead one's latest
 * loads until it has (`LoadsHub.hold`).
 *
 * The workers run the same program: in a worker (`cluster.isWorker`) the caller starts the
 * server with `startServer(config, { worker: process })`.
 */
import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import { isLoadsMessage, LoadsHub } from './ipc-loads.js';
import { isLiveMessage, isRecordMessage } from './start.js';

export interface WorkersOptions {
  /** How many workers; `auto`: one per core (`os.availableParallelism()`). */
  readonly workers: number | 'auto';
  readonly heartbeatMs?: number;
  readonly dropAfterMs?: number;
  /** Where the primary reports a worker's death and restart (default: stderr). */
  readonly log?: (line: string) => void;
}

export interface RunningWorkers {
  /** Where the workers listen, `http://host:port` (once the first one does). */
  readonly url: string;
  /** Workers forked again after one died. */
  readonly restarts: number;
  /** The process ids of the live workers. */
  pids(): number[];
  /** Stops every worker (SIGTERM: each answers what is queued), then resolves. */
  close(): Promise<void>;
}

/** The number of workers `auto` or `N` stands for. */
export function workerCount(n: number | 'auto'): number {
  return n === 'auto' ? Math.max(1, availableParallelism()) : n;
}

/** Forks the workers and resolves once one listens. Call in the primary process only. */
export function runWorkers(o: WorkersOptions): Promise<RunningWorkers> {
  if (!cluster.isPrimary) throw new TypeError('runWorkers: in the primary process only');
  const n = workerCount(o.workers);
  const log = o.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const hub = new LoadsHub(
    o.heartbeatMs ?? 250,
    Math.ceil((o.dropAfterMs ?? 1000) / (o.heartbeatMs ?? 250)),
    n,
  );
  const live = new Map<number, { worker: Worker; started: number; slot: number }>();
  let closing = false;
  let restarts = 0;

  const fork = (slot: number): void => {
    const worker = cluster.fork({ WAI_WORKER_SLOT: String(slot), WAI_WORKERS: String(n) });
    live.set(worker.id, { worker, started: Date.now(), slot });
    worker.on('message', (m: unknown) => {
      if (isLoadsMessage(m)) {
        if (worker.isConnected()) worker.send(hub.beat(slot, m, Date.now()));
      } else if (isRecordMessage(m) || isLiveMessage(m)) {
        for (const { worker: other } of live.values()) {
          if (other !== worker && other.isConnected()) other.send(m);
        }
      }
    });
  };

  return new Promise<RunningWorkers>((resolve, reject) => {
    let url: string | undefined;
    cluster.on('listening', (_worker, address) => {
      if (url !== undefined) return;
      const host =
        address.address === null || address.address === undefined ? '127.0.0.1' : address.address;
      url = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
      resolve(running);
    });
    cluster.on('exit', (worker, code, signal) => {
      const entry = live.get(worker.id);
      live.delete(worker.id);
      if (entry === undefined) return;
      if (closing) {
        hub.drop(entry.slot);
        return;
      }
      // Counted as it last beat until the one started in its place has rebuilt its sessions.
      hub.hold(entry.slot, Date.now());
      if (url === undefined) {
        // A worker that cannot start (a bad config, a port in use) stops the rest.
        closing = true;
        for (const { worker: w } of live.values()) w.process.kill('SIGTERM');
        reject(new Error(`a worker exited before listening (${signal ?? code})`));
        return;
      }
      restarts++;
      const lived = Date.now() - entry.started;
      log(`wai-steer: worker ${worker.process.pid} died (${signal ?? code}); starting another`);
      // One that dies at once is not forked again in a tight loop.
      setTimeout(
        () => {
          if (!closing) fork(entry.slot);
        },
        lived < 2000 ? 1000 : 0,
      ).unref();
    });
    const running: RunningWorkers = {
      get url() {
        return url ?? '';
      },
      get restarts() {
        return restarts;
      },
      pids: () => [...live.values()].flatMap(({ worker }) => worker.process.pid ?? []),
      close: () => {
        closing = true;
        const exits = [...live.values()].map(
          ({ worker }) =>
            new Promise<void>((done) => {
              if (worker.isDead()) return done();
              worker.once('exit', () => done());
              worker.process.kill('SIGTERM');
              setTimeout(() => worker.process.kill('SIGKILL'), 10_000).unref();
            }),
        );
        return Promise.all(exits).then(() => {});
      },
    };
    for (let i = 0; i < n; i++) fork(i);
  });
}
