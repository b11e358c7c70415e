/**
 * Where a request's time goes, published on `node:diagnostics_channel` for whoever subscribes (the
 * server's bench, an operator's profiler); nothing is timed or built while nobody does. Times are
 * `performance.now()`, ms, of the process.
 *
 * - `wai-steering:request`: a request whose answer has gone out ({@link RequestTrace}): when it
 *   was parsed, when the application's synchronous part returned (for a steering request: decided,
 *   signed and queued for its group commit), when its answer was ready, written, and gone.
 * - `wai-steering:commit`: a group commit ({@link CommitTrace}): when it began, ended, and its
 *   items.
 * - `wai-steering:work`: other work on the event loop that requests wait behind
 *   ({@link WorkTrace}): the log's integration, the decisions' key merge, the sessions' sweep, a
 *   WAL checkpoint on the event loop; one wait, `write-lock`, from a group commit's first refusal
 *   of the write lock (another process's, or the checkpointer's) to its commit; and the embedded
 *   store's checkpointer's runs, `wal-checkpoint`, on a thread of their own; and an energy
 *   account, `energy-account`, from its start to its end (its pages taken in turns with the
 *   requests).
 */
import { channel } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

/** A request answered: its times, ms (`performance.now()`). */
export interface RequestTrace {
  /** Parsed: the request handed to the server (`node:http`'s `request` event). */
  readonly parsed: number;
  /** The application's synchronous part returned (a steering request queued for its commit). */
  readonly handled: number;
  /** Its answer was ready (a steering request: its group commit written). */
  readonly answered: number;
  /** Its answer written into the socket (`end`). */
  readonly written: number;
  /** Its answer handed to the kernel (or the connection dropped). */
  readonly gone: number;
  readonly status: number;
  /** The connection it came on (a client's next request on it follows this answer). */
  readonly socket: Socket;
}

/** A group commit: its times, ms, its items, and the process's CPU meanwhile (ms). */
export interface CommitTrace {
  readonly start: number;
  readonly end: number;
  readonly size: number;
  readonly cpu: number;
}

/** Work on the event loop besides requests: its name, times (ms), and the process's CPU meanwhile. */
export interface WorkTrace {
  readonly name: string;
  readonly start: number;
  readonly end: number;
  /** The process's CPU time meanwhile, ms (every thread: on a busy machine, wall time is not work). */
  readonly cpu?: number;
}

export const requestChannel = channel('wai-steering:request');
export const commitChannel = channel('wai-steering:commit');
export const workChannel = channel('wai-steering:work');

/** The clock of the traces, ms. */
export const traceNow = (): number => performance.now();

/** The process's CPU time (every thread), ms: what a traced span used, on a machine shared or not. */
export function cpuNow(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** Publishes work named `name` that began at `start` (ms) with the process's CPU at `cpu` (ms). */
function publishWork(name: string, start: number, cpu: number): void {
  workChannel.publish({
    name,
    start,
    end: performance.now(),
    cpu: cpuNow() - cpu,
  } satisfies WorkTrace);
}

/**
 * Runs the asynchronous `f` (work done in turns between requests, as an energy account is),
 * published on `wai-steering:work` as `name` from its start to its end when anyone subscribes.
 */
export async function tracedAsync<T>(name: string, f: () => Promise<T>): Promise<T> {
  if (!workChannel.hasSubscribers) return f();
  const start = performance.now();
  const cpu = cpuNow();
  try {
    return await f();
  } finally {
    publishWork(name, start, cpu);
  }
}

/** Runs `f`, published on `wai-steering:work` as `name` when anyone subscribes. */
export function traced<T>(name: string, f: () => T): T {
  if (!workChannel.hasSubscribers) return f();
  const start = performance.now();
  const cpu = cpuNow();
  try {
    return f();
  } finally {
    publishWork(name, start, cpu);
  }
}
