/**
 * The materials read from an archive on disk: `archive.json`, the room, the key log and the
 * checkpoint at once (each within its limit), the policies and records as they are iterated, and
 * the decisions streamed from `decisions.bin` in chunks (memory bounded by the sessions and the
 * records, not the decisions).
 */
import { type Stats, statSync } from 'node:fs';
import { join } from 'node:path';
import { ARCHIVE_FILES, ArchiveError, type ArchiveMeta, parseArchiveMeta } from '../archive.js';
import { FRAME_FILES, MAX_FRAME } from '../frames.js';
import { FileFrames, frameBatches, readFile, sizeOf } from './internal/files.js';

/** The most bytes `archive.json` may hold. */
export const MAX_META_BYTES = 1 << 20;

/**
 * An archive's materials: everything but the decisions. `policies` and `records` are read from
 * their files each time they are iterated, a chunk at a time: what a caller keeps of them is all
 * that stays in memory.
 */
export interface ArchiveMaterials {
  readonly meta: ArchiveMeta;
  readonly room: Uint8Array;
  readonly keyLog: Uint8Array | null;
  readonly policies: Iterable<Uint8Array>;
  readonly records: Iterable<Uint8Array>;
  /** The checkpoint's text, when the archive carries the decision log. */
  readonly checkpoint: string | null;
}

/** Reads an archive's `archive.json`, room and key log; its policies and records as they are iterated. */
export function readArchiveMaterials(dir: string): ArchiveMaterials {
  let st: Stats;
  try {
    st = statSync(dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new ArchiveError(
      code === 'ELOOP'
        ? `${dir}: a loop of symbolic links; give the archive's directory itself`
        : `${dir}: not a directory`,
    );
  }
  if (!st.isDirectory()) throw new ArchiveError(`${dir}: not a directory`);
  const metaBytes = readFile(dir, ARCHIVE_FILES.meta, MAX_META_BYTES)!;
  let meta: ArchiveMeta;
  try {
    meta = parseArchiveMeta(new TextDecoder().decode(metaBytes));
  } catch (e) {
    throw new ArchiveError(`${join(dir, ARCHIVE_FILES.meta)}: ${(e as Error).message}`);
  }
  const room = readFile(dir, ARCHIVE_FILES.room, MAX_FRAME)!;
  const keyLog = readFile(dir, ARCHIVE_FILES.keyLog, MAX_FRAME, true);
  const checkpointBytes = readFile(dir, ARCHIVE_FILES.checkpoint, MAX_META_BYTES, true);
  let checkpoint: string | null = null;
  if (checkpointBytes !== null) {
    try {
      checkpoint = new TextDecoder('utf-8', { fatal: true }).decode(checkpointBytes);
    } catch {
      throw new ArchiveError(`${join(dir, ARCHIVE_FILES.checkpoint)}: not UTF-8 text`);
    }
  } else if (meta.log !== undefined) {
    throw new ArchiveError(
      `${join(dir, ARCHIVE_FILES.meta)}: names the log ${meta.log.origin}, but the archive has no ${ARCHIVE_FILES.checkpoint}`,
    );
  }
  // Checked now (a FIFO, a device, a loop), read as they are used.
  const framed = [ARCHIVE_FILES.policies, ARCHIVE_FILES.records];
  for (const name of checkpoint === null ? framed : [...framed, ARCHIVE_FILES.logEntries]) {
    sizeOf(join(dir, name));
  }
  return {
    meta,
    room,
    keyLog,
    checkpoint,
    policies: new FileFrames(join(dir, ARCHIVE_FILES.policies), ARCHIVE_FILES.policies),
    records: new FileFrames(join(dir, ARCHIVE_FILES.records), ARCHIVE_FILES.records),
  };
}

/** The frames of `decisions.bin`, streamed in chunks of 1 MiB. */
export async function* decisionFrames(
  dir: string,
  onBytes?: (read: number, size: number) => void,
): AsyncGenerator<Uint8Array> {
  for await (const frames of decisionBatches(dir, onBytes)) yield* frames;
}

/**
 * The frames of `decisions.bin` a slice of a chunk at a time (an array each, taken without an
 * `await` per frame). A file that does not read is an {@link ArchiveError} naming it.
 */
export async function* decisionBatches(
  dir: string,
  onBytes?: (read: number, size: number) => void,
): AsyncGenerator<Uint8Array[]> {
  const path = join(dir, ARCHIVE_FILES.decisions);
  try {
    yield* frameBatches(path, onBytes, FRAME_FILES[ARCHIVE_FILES.decisions].max);
  } catch (e) {
    if (e instanceof ArchiveError) throw e;
    throw new ArchiveError(`${path}: cannot read (${(e as NodeJS.ErrnoException).code ?? e})`);
  }
}
