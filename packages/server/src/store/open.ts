/**
 * Opening the configured store at start, failing closed: the store is the server's memory (every
 * decision it served must stay fetchable, §8.4), so a store that is missing, unreadable or
 * damaged is an error that names `store.path` and the cause, never a fresh empty store made in
 * its place.
 *
 * - A new store is created only when asked (`store.create: true`, or `wai-steer serve --init`),
 *   in a directory that exists.
 * - An existing path must be a regular, writable file (mode and `access(2)`: root passes
 *   `access` on a read-only file, the mode bits say what was meant), whose header is SQLite's,
 *   whose size is a whole number of pages and, while no WAL beside it holds pages, not less than
 *   the header says.
 * - SQLite's `PRAGMA quick_check` then runs on a worker thread with its own connection, bounded by
 *   `store.check_timeout` (0 skips it): a damaged page refuses the start, and so does a check that
 *   does not finish in time (the message says how to skip it).
 */
import { accessSync, closeSync, constants, openSync, readSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Worker } from 'node:worker_threads';
import { ConfigError } from '../config/errors.js';
import type { ServerConfig } from '../config/read.js';
import { describeError } from '../health.js';
import { PgStore } from './postgres/index.js';
import { SqliteStore, StoreSchemaError } from './sqlite/index.js';
import type { SteeringStore } from './store.js';

/** Options of {@link openStore}. */
export interface OpenStoreOptions {
  readonly synchronous?: 'normal' | 'full';
  /** Create the store when the path does not exist. */
  readonly create?: boolean;
  /** ms the `quick_check` may take; 0 skips it. */
  readonly checkTimeoutMs?: number;
  /** The instance kept with each decision committed (`SqliteStoreOptions.instance`). */
  readonly instance?: number;
}

const HEADER = 'SQLite format 3\u0000';

function storeError(path: string, cause: string): ConfigError {
  return new ConfigError([`store.path: ${path} ${cause}`]);
}

function code(e: unknown): string {
  return (e as NodeJS.ErrnoException).code ?? describeError(e);
}

/** The size of a file, 0 when there is none. */
function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** The checks of an existing file before SQLite opens it. */
function checkFile(path: string): void {
  const st = statSync(path);
  if (st.isDirectory()) throw storeError(path, 'is a directory, not a store file');
  if (!st.isFile()) throw storeError(path, 'is not a regular file');
  if ((st.mode & 0o222) === 0) {
    throw storeError(
      path,
      `is read-only (mode ${(st.mode & 0o777).toString(8)}): the server writes to its store`,
    );
  }
  try {
    accessSync(path, constants.R_OK | constants.W_OK);
  } catch (e) {
    throw storeError(path, `cannot be read and written (${code(e)})`);
  }
  try {
    accessSync(dirname(path), constants.W_OK);
  } catch (e) {
    throw storeError(
      path,
      `is in a directory the server cannot write (${code(e)}; SQLite writes its WAL beside the file)`,
    );
  }
  if (st.size === 0) {
    throw storeError(
      path,
      'is empty: not a store (remove it and start with store.create: true or --init for a new one)',
    );
  }
  const head = Buffer.alloc(100);
  const fd = openSync(path, 'r');
  let n: number;
  try {
    n = readSync(fd, head, 0, 100, 0);
  } finally {
    closeSync(fd);
  }
  if (n < 100 || head.toString('latin1', 0, 16) !== HEADER) {
    throw storeError(path, "is not a SQLite database (its header is not SQLite's)");
  }
  const raw = head.readUInt16BE(16);
  const pageSize = raw === 1 ? 65_536 : raw;
  if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0) {
    throw storeError(path, `is damaged (its header states a page size of ${raw})`);
  }
  const pages = head.readUInt32BE(28);
  // The header's page count is valid when its version-valid-for number is the change counter,
  // and it states the file's size only while no WAL holds pages: a checkpoint copies the WAL's
  // pages in page order, page 1 (this header, with the new count) before the pages that extend
  // the file, so another process's checkpoint (a worker of the same file, a running server whose
  // store the CLI exports) shows a header ahead of the file for a moment. With a WAL beside,
  // `quick_check` (through SQLite, which reads the WAL) is what finds missing pages.
  const valid = head.readUInt32BE(92) === head.readUInt32BE(24);
  const walHolds = fileSize(`${path}-wal`) > 0;
  if (st.size % pageSize !== 0 || (valid && !walHolds && pages > 0 && st.size < pages * pageSize)) {
    throw storeError(
      path,
      `is truncated (${st.size} bytes; ${valid ? `its header states ${pages} pages of ${pageSize} bytes` : `not a whole number of ${pageSize}-byte pages`})`,
    );
  }
}

const CHECKER = `
const { parentPort, workerData } = require('node:worker_threads');
try {
  const Database = require(workerData.sqlite);
  const db = new Database(workerData.path, { fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  const rows = db.pragma('quick_check(8)');
  db.close();
  parentPort.postMessage({ problems: rows.map((r) => r.quick_check).filter((m) => m !== 'ok') });
} catch (e) {
  parentPort.postMessage({ error: String((e && e.code ? e.code + ': ' : '') + (e && e.message)) });
}
`;

/** `quick_check` on a worker thread, bounded by `timeoutMs`. */
function quickCheck(path: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(CHECKER, {
      eval: true,
      workerData: { sqlite: createRequire(import.meta.url).resolve('better-sqlite3'), path },
    });
    const timer = setTimeout(() => {
      void worker.terminate();
      reject(
        storeError(
          path,
          `was not checked: SQLite's quick_check did not finish within ${timeoutMs} ms (raise store.check_timeout, or set it to 0 to start without the check)`,
        ),
      );
    }, timeoutMs);
    worker.once('message', (m: { problems?: string[]; error?: string }) => {
      clearTimeout(timer);
      void worker.terminate();
      if (m.error !== undefined)
        reject(storeError(path, `does not open as a SQLite database (${m.error})`));
      else if (m.problems !== undefined && m.problems.length > 0) {
        reject(
          storeError(
            path,
            `is damaged: SQLite's quick_check says: ${m.problems.slice(0, 3).join('; ')}`,
          ),
        );
      } else resolve();
    });
    worker.once('error', (e) => {
      clearTimeout(timer);
      reject(storeError(path, `was not checked (${describeError(e)})`));
    });
  });
}

/**
 * Opens the store at `path` (or `:memory:`) as the configuration says, or throws a
 * {@link ConfigError} naming `store.path` and the cause.
 */
export async function openStore(
  path: string,
  options: OpenStoreOptions = {},
): Promise<SqliteStore> {
  const synchronous = options.synchronous ?? 'normal';
  const kept = {
    synchronous,
    ...(options.instance === undefined ? {} : { instance: options.instance }),
  };
  if (path === ':memory:') return new SqliteStore(path, kept);
  let exists = true;
  try {
    statSync(path);
  } catch (e) {
    if (code(e) !== 'ENOENT') throw storeError(path, `cannot be read (${code(e)})`);
    exists = false;
  }
  if (!exists) {
    let dir: ReturnType<typeof statSync> | undefined;
    try {
      dir = statSync(dirname(path));
    } catch (e) {
      throw storeError(
        path,
        `is in a directory that does not exist (${dirname(path)}: ${code(e)})`,
      );
    }
    if (!dir.isDirectory())
      throw storeError(path, `is in ${dirname(path)}, which is not a directory`);
    if (options.create !== true) {
      throw storeError(
        path,
        'does not exist: a new store is created only when asked (store.create: true, or wai-steer serve --init); if it existed, it was moved or deleted',
      );
    }
  } else {
    checkFile(path);
    const timeout = options.checkTimeoutMs ?? 60_000;
    if (timeout > 0) await quickCheck(path, timeout);
  }
  try {
    return new SqliteStore(path, kept);
  } catch (e) {
    if (e instanceof StoreSchemaError)
      throw storeError(path, `is not readable by this server: ${e.message}`);
    throw storeError(path, `does not open as a store (${describeError(e)})`);
  }
}

/**
 * Opens the store of a configuration: PostgreSQL by `store.url`; SQLite by `store.path`, checked
 * at start as {@link openStore} does (created only when asked, `quick_check`, every error naming
 * the path).
 */
export async function openConfiguredStore(
  config: ServerConfig,
  options: {
    readonly init?: boolean;
    /** The instance whose decisions it commits (`instances/identity.ts`). */
    readonly instance?: number;
  } = {},
): Promise<SteeringStore> {
  const instance = options.instance === undefined ? {} : { instance: options.instance };
  if (config.store.url !== undefined) {
    try {
      return await PgStore.open(config.store.url, instance);
    } catch (e) {
      throw new ConfigError([`store.url: ${(e as Error).message}`]);
    }
  }
  return openStore(config.store.path ?? ':memory:', {
    synchronous: config.store.synchronous,
    create: config.store.create || options.init === true,
    checkTimeoutMs: config.store.checkTimeout,
    ...instance,
  });
}
