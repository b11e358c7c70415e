/**
 * The spool's directories, and their checks at start. Under the spool directory: `records/`
 * (records some server has yet to take), `taken/<server id>/` (a mark for each record a server
 * took or refused), `done/` (records every server took) and `refused/` (a record a server refused,
 * or a spool file that does not read), with `cursor.json` beside them.
 *
 * Opening them refuses a path under a kernel file system, creates what is missing one level at a
 * time, and writes and syncs a probe in each, so that a spool that exists but cannot be written is
 * refused at start rather than at the first period. Every problem with the spool itself (a path
 * the agent may not write, a read-only file system, a file where a directory belongs, a full
 * disk) is one line naming the path and the fix ({@link spoolProblem}): at start an
 * {@link AgentConfigError}, later a {@link SpoolWriteError}. Every write is durable
 * ({@link writeDurably}).
 */
import { createHash } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { AgentConfigError } from '../types.js';

/** A write to the spool failed: `message` names the path and the fix; `code` the cause. */
export class SpoolWriteError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = 'SpoolWriteError';
  }
}

/** A short stable name of a server URL, for its `taken/` folder. */
export function serverId(url: string): string {
  return createHash('sha256').update(url).digest('hex').slice(0, 16);
}

/** The error code of a failed file operation (`EACCES`), or its message. */
export function codeOf(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  return typeof code === 'string' ? code : String((e as Error).message ?? e);
}

/**
 * One line naming a spool path, what went wrong and the fix: what an operator reads when the
 * agent cannot use its spool.
 */
export function spoolProblem(path: string, code: string): string {
  const fix: Record<string, string> = {
    EACCES:
      "the agent's user may not write it: give that user write access (chown or chmod), or choose another spool",
    EPERM:
      'the system does not let the agent write it (an immutable attribute, a security policy): lift that, or choose another spool',
    EROFS:
      'it is on a read-only file system: remount it read-write, or choose a spool on a writable one',
    ENOTDIR: 'a file stands where a directory belongs: move that file, or choose another spool',
    EEXIST: 'a file stands where a directory belongs: move that file, or choose another spool',
    EISDIR: 'a directory stands where a file belongs: move that directory away',
    ENOSPC: 'the disk is full: free space on it, or choose a spool on another disk',
    EDQUOT: "the user's disk quota is exhausted: raise it, or free space",
    ENOENT:
      'a directory on its path does not exist and cannot be created: create it, or choose another spool',
    EIO: 'the disk reported an I/O error: check the disk',
  };
  return `spool ${path}: cannot write it (${code}): ${fix[code] ?? 'check the path and its file system'}`;
}

const KERNEL_FS = ['/proc', '/sys'];

/** The kernel file system a path is under (`/proc`, `/sys`), if any. */
export function kernelFsOf(path: string): string | undefined {
  const under = (p: string) => KERNEL_FS.find((k) => p === k || p.startsWith(`${k}${sep}`));
  const direct = under(path);
  if (direct !== undefined) return direct;
  // Through a symbolic link: the real path of the deepest part that exists.
  for (let p = path; ; p = dirname(p)) {
    try {
      return under(realpathSync(p));
    } catch {
      if (dirname(p) === p) return undefined;
    }
  }
}

/**
 * Creates a directory and the missing ones above it, one at a time. Node's recursive `mkdir`
 * loops forever where a kernel file system answers ENOENT for a directory it will not create
 * (`mkdir -p /proc/x`); this one fails instead.
 */
function ensureDir(dir: string, depth = 0): void {
  try {
    mkdirSync(dir);
    return;
  } catch (e) {
    const code = codeOf(e);
    if (code === 'EEXIST') {
      if (!statSync(dir).isDirectory()) throw Object.assign(new Error(dir), { code: 'ENOTDIR' });
      return;
    }
    if (code !== 'ENOENT' || depth > 64 || dirname(dir) === dir) throw e;
  }
  ensureDir(dirname(dir), depth + 1);
  mkdirSync(dir);
}

/** Syncs a directory, so that the names it holds are durable. */
export function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Writes a file durably: a temporary name, synced, renamed, the directory synced. */
export function writeDurably(dir: string, name: string, data: Uint8Array | string): void {
  const tmp = join(dir, `.${name}.tmp`);
  const fd = openSync(tmp, 'w', 0o644);
  try {
    writeSync(fd, typeof data === 'string' ? Buffer.from(data) : data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, join(dir, name));
  syncDir(dir);
}

/** The directories of a spool. */
export interface SpoolDirs {
  readonly dir: string;
  readonly records: string;
  readonly taken: string;
  readonly done: string;
  readonly refused: string;
}

/** The `taken/` folder of a server. */
export function takenDir(dirs: SpoolDirs, server: string): string {
  return join(dirs.taken, serverId(server));
}

/**
 * Opens a spool's directories (see the module's comment) for the servers given. Throws an
 * {@link AgentConfigError} naming the path and the fix when it cannot.
 */
export function openSpoolDirs(dir: string, servers: readonly string[]): SpoolDirs {
  const kernel = kernelFsOf(resolve(dir));
  if (kernel !== undefined) {
    throw new AgentConfigError(
      `spool ${dir}: under ${kernel}, a kernel file system that holds no files of the agent: choose a directory on a disk (such as /var/lib/wai-steering/hop-spool)`,
    );
  }
  const dirs: SpoolDirs = {
    dir,
    records: join(dir, 'records'),
    taken: join(dir, 'taken'),
    done: join(dir, 'done'),
    refused: join(dir, 'refused'),
  };
  const all = [
    dir,
    dirs.records,
    dirs.taken,
    dirs.done,
    dirs.refused,
    ...servers.map((s) => takenDir(dirs, s)),
  ];
  for (const d of all) {
    try {
      ensureDir(d);
      // A directory that exists may still not be writable (read-only, not the agent's).
      writeDurably(d, '.probe', '');
      rmSync(join(d, '.probe'));
      rmSync(join(d, '..probe.tmp'), { force: true });
    } catch (e) {
      throw new AgentConfigError(spoolProblem(d, codeOf(e)));
    }
  }
  return dirs;
}
