/**
 * A file replaced atomically: written to a temporary file beside it, fsync'd, renamed over it,
 * then the directory fsync'd, so that after a crash the file holds the old bytes or the new ones,
 * never a part of either (the state of `log watch` and `log witness`); and the temporary files
 * of a process killed while it wrote, removed when the next one starts.
 */
import {
  closeSync,
  fsyncSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';

export function writeAtomic(path: string, data: string | Uint8Array): void {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  const fd = openSync(tmp, 'w', 0o644);
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let at = 0;
    while (at < bytes.length) at += writeSync(fd, bytes, at, bytes.length - at);
    fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw e;
  }
  closeSync(fd);
  renameSync(tmp, path);
  const dir = openSync(dirname(path), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}

/**
 * Removes the temporary files a process killed while it wrote `statePath` left beside it
 * (`.<state>.<pid>.tmp`, {@link writeAtomic}), those of a process that is no longer running;
 * what it removed.
 */
export function removeStaleTemporaries(statePath: string): string[] {
  const dir = dirname(statePath);
  const re = new RegExp(
    `^\\.${basename(statePath).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.(\\d+)\\.tmp$`,
  );
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const m = re.exec(name);
    if (m === null) continue;
    const pid = Number(m[1]);
    if (pid === process.pid || running(pid)) continue;
    rmSync(join(dir, name), { force: true });
    removed.push(join(dir, name));
  }
  return removed;
}

/** Whether a process `pid` runs (one of another user's counts). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
