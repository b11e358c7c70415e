/**
 * The session secret (`guard/session-mac.ts`) when the configuration names none
 * (`sessions.secret`): one that outlives the process, so that the sessions minted before a
 * restart are still taken after it (and by every worker or instance of the deployment).
 *
 * - A SQLite file store: 32 random bytes in a file beside it, `<store>.session-secret`, mode
 *   0600, made once (written whole under another name, then linked into place: two workers
 *   starting together keep the one linked first, and no reader sees it half-written).
 * - A PostgreSQL store: 32 random bytes in its `session_secret` table, made by the first
 *   instance to start (`docs/decisions.md`, *The session secret of a deployment*).
 * - `:memory:`: a random secret of this process, as it keeps nothing else either.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  linkSync,
  openSync,
  readFileSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { ConfigError } from '../config/errors.js';

/** The file of the session secret kept beside a SQLite store file. */
export function secretPathOf(storePath: string): string {
  return `${storePath}.session-secret`;
}

/** fsync of a directory, so that a file linked into it survives a power loss. */
function syncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Some filesystems do not sync a directory: the link is there for this boot at least.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Reads the secret kept at `path`: at least 16 bytes, or a {@link ConfigError}. */
function readKept(path: string): Uint8Array {
  const bytes = readFileSync(path);
  if (bytes.length < 16) {
    throw new ConfigError([
      `sessions.secret: ${path} (the session secret kept beside the store) holds ${bytes.length} bytes; remove it to make another, or name a secret in sessions.secret`,
    ]);
  }
  return new Uint8Array(bytes);
}

/**
 * The session secret kept beside the SQLite store file at `storePath`: read, or made (32
 * random bytes, mode 0600) when there is none.
 */
export function secretBeside(storePath: string): Uint8Array {
  const path = secretPathOf(storePath);
  try {
    return readKept(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
      if (e instanceof ConfigError) throw e;
      throw new ConfigError([
        `sessions.secret: ${path} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
      ]);
    }
  }
  const temp = `${path}.${process.pid}.tmp`;
  // One a process of the same id left (killed while writing it) is no one's.
  try {
    unlinkSync(temp);
  } catch {
    // None: the usual case.
  }
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeSync(fd, randomBytes(32));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temp, path);
  } catch (e) {
    // Another process linked its own first: that one is the secret.
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  } finally {
    unlinkSync(temp);
  }
  syncDir(dirname(path));
  return readKept(path);
}
