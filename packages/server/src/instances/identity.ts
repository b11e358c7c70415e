/**
 * Which instance a process is, for what it keeps in the store under its name: the decisions its
 * commits write (each with its instance, so that it rebuilds its own sessions at start:
 * `engine/rebuild.ts`) and its row of the loads heartbeat (`loads.ts`). Stable across restarts,
 * so that an instance that starts again finds its sessions and replaces its own row:
 *
 * - a server alone on a SQLite file: instance 0, every session its own;
 * - worker `k` of `serve --workers N` on a SQLite file: instance `k` (its slot, the same for the
 *   worker forked again in its place); its own sessions are those of instance `k` modulo N (a
 *   file served with more workers before);
 * - on PostgreSQL: `instances.name`, by default the host's name and the configured port (and
 *   `/k` for worker `k`), kept as the first 4 bytes of its SHA-256 (a signed 32-bit integer).
 */
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';

/** A worker's place among the workers of `serve --workers N`. */
export interface WorkerSlot {
  /** From 0. */
  readonly index: number;
  /** N. */
  readonly of: number;
}

/** An instance, as the store knows it. */
export interface InstanceIdentity {
  /** Its name (the heartbeat's row, the logs). */
  readonly name: string;
  /** What its commits keep with each decision. */
  readonly id: number;
  /** Whether a decision committed under `instance` placed one of this instance's sessions. */
  mine(instance: number | null): boolean;
}

/** The identity of an instance on a SQLite file: alone, or a worker of several. */
export function sqliteIdentity(slot: WorkerSlot | undefined): InstanceIdentity {
  if (slot === undefined || slot.of <= 1) {
    return { name: `${hostname()}/0`, id: 0, mine: () => true };
  }
  const { index, of } = slot;
  return {
    name: `${hostname()}/${index}`,
    id: index,
    mine: (instance) => (instance ?? 0) % of === index,
  };
}

/** The 32-bit id of an instance's name: the first 4 bytes of its SHA-256, signed. */
export function idOfName(name: string): number {
  return createHash('sha256').update(name).digest().readInt32BE(0);
}

/** The identity of an instance on PostgreSQL: its configured name, or host and port. */
export function pgIdentity(
  configured: string | null,
  port: number,
  slot: WorkerSlot | undefined,
): InstanceIdentity {
  const base = configured ?? `${hostname()}:${port}`;
  const name = slot === undefined || slot.of <= 1 ? base : `${base}/${slot.index}`;
  const id = idOfName(name);
  return { name, id, mine: (instance) => instance === id };
}

/** The slot of this process when it is a worker of `serve --workers N` (its environment). */
export function workerSlotOf(env: NodeJS.ProcessEnv): WorkerSlot | undefined {
  const index = Number(env.WAI_WORKER_SLOT);
  const of = Number(env.WAI_WORKERS);
  if (!Number.isInteger(index) || !Number.isInteger(of) || index < 0 || index >= of) {
    return undefined;
  }
  return { index, of };
}
