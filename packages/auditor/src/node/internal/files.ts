/**
 * Reading an archive's files safely: each opened as a regular file (a FIFO, a device, a
 * directory or a loop of links refused before anything is read), read at the size it had when
 * opened, a small file whole within its limit, a file of frames a chunk and a slice at a time.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { ArchiveError } from '../../archive.js';
import {
  FRAME_FILES,
  FrameError,
  type FrameFile,
  FrameReader,
  frameUnread,
  MAX_FRAME,
  unreadFrameMessage,
} from '../../frames.js';

/** The archive's files are read in chunks of this many bytes. */
export const CHUNK = 1 << 20;
/** And given to the frame reader in slices of this many. */
const SLICE = 1 << 16;

/** One of an archive's files, open: a regular file, and its size when opened. */
export interface OpenFile {
  readonly path: string;
  readonly fd: number;
  readonly size: number;
}

function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * Opens one of an archive's files for reading: a regular file, or a symbolic link to one. A FIFO,
 * a device, a directory or a loop of links is an {@link ArchiveError} naming the file, before
 * anything is read (opened without blocking, then checked on the descriptor). `null` when
 * `optional` and absent.
 */
export function openFile(path: string, optional = false): OpenFile | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (optional && code === 'ENOENT') return null;
    if (code === 'ELOOP') {
      throw new ArchiveError(`${path}: a loop of symbolic links; put the file itself there`);
    }
    throw new ArchiveError(`${path}: cannot read (${code ?? (e as Error).message})`);
  }
  const st = fstatSync(fd);
  if (!st.isFile()) {
    closeSync(fd);
    throw new ArchiveError(
      `${path}: ${kindOf(st)}, not a regular file; an archive's files are regular files: put the file itself there`,
    );
  }
  return { path, fd, size: st.size };
}

/** The size of one of an archive's files, checked as {@link openFile} checks it. */
export function sizeOf(path: string): number {
  const f = openFile(path)!;
  closeSync(f.fd);
  return f.size;
}

/** Reads `length` bytes at `position`, fewer only at the end of the file. */
export function readAt(fd: number, into: Uint8Array, position: number): number {
  let n = 0;
  while (n < into.length) {
    const got = readSync(fd, into, n, into.length - n, position + n);
    if (got === 0) break;
    n += got;
  }
  return n;
}

/**
 * The file `name` of the archive in `dir`, whole (its size checked against `max` before anything
 * is read); `null` when `optional` and absent.
 */
export function readFile(
  dir: string,
  name: string,
  max: number,
  optional = false,
): Uint8Array | null {
  const f = openFile(join(dir, name), optional);
  if (f === null) return null;
  try {
    if (f.size > max) {
      throw new ArchiveError(`${f.path}: ${f.size} bytes, over the ${max} it may hold`);
    }
    const out = new Uint8Array(f.size);
    return out.subarray(0, readAt(f.fd, out, 0));
  } finally {
    closeSync(f.fd);
  }
}

/** A {@link FrameError} of the file at `path` as the one line of an {@link ArchiveError}. */
function frameError(path: string, e: unknown): unknown {
  return e instanceof FrameError ? new ArchiveError(`${path}: ${e.message}`) : e;
}

/**
 * The frames of the file at `path` (opened as {@link openFile} opens it), a slice of a chunk at
 * a time: an array each, possibly empty. The size it had when opened, no more: a file that grows
 * is read as it was. Read synchronously a chunk at a time (a stream's machinery cost a tenth of
 * a decision's signature), and given a slice at a time: a chunk of tiny frames is not a million
 * views. Each frame's length is checked against what is left of the file before it is
 * allocated; a frame that does not read is an {@link ArchiveError} naming the file and the byte.
 * `onBytes` is told the bytes read after each chunk; `max` is the most bytes a frame may hold.
 */
export function* frameBatches(
  path: string,
  onBytes?: (read: number, size: number) => void,
  max: number = MAX_FRAME,
): Generator<Uint8Array[]> {
  const f = openFile(path)!;
  try {
    const reader = new FrameReader(f.size, max);
    let at = 0;
    while (at < f.size) {
      const chunk = new Uint8Array(Math.min(CHUNK, f.size - at));
      const n = readAt(f.fd, chunk, at);
      if (n === 0) break;
      at += n;
      onBytes?.(at, f.size);
      for (let o = 0; o < n; o += SLICE) {
        yield reader.push(chunk.subarray(o, Math.min(n, o + SLICE)));
      }
    }
    reader.end();
  } catch (e) {
    throw frameError(path, e);
  } finally {
    closeSync(f.fd);
  }
}

/**
 * The frames of one of an archive's files, read from the file at each iteration
 * ({@link frameBatches}). Given the archive's `file` it names, strictly: each frame within the
 * largest record of that file, and each read as that record (C1), or an {@link ArchiveError}
 * naming the file, the frame and why.
 */
export class FileFrames implements Iterable<Uint8Array> {
  constructor(
    private readonly path: string,
    private readonly file?: FrameFile,
  ) {}

  *[Symbol.iterator](): Iterator<Uint8Array> {
    const file = this.file;
    if (file === undefined) {
      for (const frames of frameBatches(this.path)) yield* frames;
      return;
    }
    let index = 0;
    let offset = 0;
    for (const frames of frameBatches(this.path, undefined, FRAME_FILES[file].max)) {
      for (const frame of frames) {
        const unread = frameUnread(file, frame);
        if (unread !== null) {
          throw new ArchiveError(
            unreadFrameMessage(this.path, file, index, offset, unread.message),
          );
        }
        index++;
        offset += 4 + frame.length;
        yield frame;
      }
    }
  }
}
