import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readStrictJson } from '@wai-steering/config-text';
import { UserError } from './errors.js';

/** The message of a file-system error, without Node's stack-trace style detail. */
export function describeFsError(e: unknown): string {
  const code = (e as { code?: unknown } | null)?.code;
  switch (code) {
    case 'ENOENT':
      return 'no such file or directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'is a directory';
    case 'ENOTDIR':
      return 'not a directory';
    case 'EEXIST':
      return 'already exists';
    case 'ENOSPC':
      return 'no space left on the device';
    case 'EROFS':
      return 'read-only file system';
    default:
      return e instanceof Error ? e.message.split('\n')[0]! : String(e);
  }
}

/** The bytes of a file; a {@link UserError} naming `what` and the path when it cannot be read. */
export function readBytes(path: string, what: string): Uint8Array {
  try {
    const buf = readFileSync(path);
    return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  } catch (e) {
    throw new UserError(`cannot read ${what} ${path}: ${describeFsError(e)}`);
  }
}

/** The text of a file, UTF-8. */
export function readText(path: string, what: string): string {
  const bytes = readBytes(path, what);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new UserError(`${what} ${path} is not UTF-8 text`);
  }
}

/** A JSON file's value. */
export function readJson(path: string, what: string): unknown {
  const text = readText(path, what);
  const read = readStrictJson(text);
  if (!read.ok) throw new UserError(`${what} ${path}: ${read.problem}`);
  return read.value;
}

export interface WriteOptions {
  /** Write with mode 0600 (a secret key). */
  readonly secret?: boolean;
  /** Refuse an existing file unless `force`. */
  readonly noClobber?: boolean;
  readonly force?: boolean;
}

/** Writes `data` to `path`; a {@link UserError} when it cannot. */
export function writeOutput(
  path: string,
  data: string | Uint8Array,
  what: string,
  options: WriteOptions = {},
): void {
  const exclusive = options.noClobber === true && options.force !== true;
  try {
    writeFileSync(path, data, {
      flag: exclusive ? 'wx' : 'w',
      ...(options.secret === true ? { mode: 0o600 } : {}),
    });
    // An existing file keeps its mode on `w`: a secret key is 0600 whatever the file was.
    if (options.secret === true) chmodSync(path, 0o600);
  } catch (e) {
    if ((e as { code?: unknown }).code === 'EEXIST') {
      throw new UserError(`${what} ${path} already exists (use --force to overwrite it)`);
    }
    throw new UserError(`cannot write ${what} ${path}: ${describeFsError(e)}`);
  }
}

const utf8 = new TextEncoder();

/** Bytewise order of file names (companion C9: "file-name order for a directory"). */
export function compareNames(a: string, b: string): number {
  return Buffer.compare(utf8.encode(a), utf8.encode(b));
}

/** One file of a records directory: its name and its bytes. */
export interface DirFile {
  readonly name: string;
  readonly bytes: Uint8Array;
}

/**
 * Every regular file of `dir` (symbolic links followed, sub-directories skipped), in bytewise
 * order of their names, each read whole.
 */
export function readDir(dir: string, what: string): DirFile[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (e) {
    throw new UserError(`cannot read ${what} ${dir}: ${describeFsError(e)}`);
  }
  const files: DirFile[] = [];
  for (const name of names.sort(compareNames)) {
    const path = join(dir, name);
    let isFile: boolean;
    try {
      isFile = statSync(path).isFile();
    } catch (e) {
      throw new UserError(`cannot read ${what} file ${path}: ${describeFsError(e)}`);
    }
    if (isFile) files.push({ name, bytes: readBytes(path, `${what} file`) });
  }
  return files;
}
