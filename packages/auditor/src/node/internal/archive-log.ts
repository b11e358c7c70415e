/**
 * The decision log an archive on disk carries, read before any decision: the checkpoint (signed
 * by a key of the room under its origin) and `log-entries.bin`, its entries read a chunk of whole
 * 40-byte entries at a time.
 */
import { closeSync } from 'node:fs';
import { join } from 'node:path';
import type { TreeHashing } from '@wai-steering/tlog';
import { nodeBackend } from '@wai-steering/wire/node';
import { ARCHIVE_FILES, ArchiveError, type ArchiveMeta } from '../../archive.js';
import { ArchiveLog, type LogSpan } from '../../log.js';
import { openPinnedRoom } from '../../verdict.js';
import type { ArchiveMaterials } from '../materials.js';
import { openFile, readAt, sizeOf } from './files.js';

const U64_MAX = (1n << 64n) - 1n;

/** The span `archive.json` states (`{"from": "<µs>", "to": "<µs>"}`), or all of time. */
export function spanOfMeta(meta: ArchiveMeta): LogSpan {
  const span = meta.span as { from?: unknown; to?: unknown } | undefined;
  const read = (v: unknown, d: bigint): bigint =>
    typeof v === 'string' && /^[0-9]{1,20}$/.test(v) && BigInt(v) <= U64_MAX ? BigInt(v) : d;
  if (span === null || typeof span !== 'object') return { from: 0n, to: U64_MAX };
  return { from: read(span.from, 0n), to: read(span.to, U64_MAX) };
}

/** Entries of the log, whole ones a chunk of about 1 MiB at a time. */
export function* logEntryChunks(path: string): Generator<Uint8Array> {
  const f = openFile(path)!;
  try {
    if (f.size % 40 !== 0) {
      throw new ArchiveError(`${path}: ${f.size} bytes, not a whole number of 40-byte entries`);
    }
    const step = 40 * 26_214;
    for (let at = 0; at < f.size; at += step) {
      const chunk = new Uint8Array(Math.min(step, f.size - at));
      const n = readAt(f.fd, chunk, at);
      if (n < chunk.length) throw new ArchiveError(`${path}: shorter than when opened`);
      yield chunk;
    }
  } finally {
    closeSync(f.fd);
  }
}

/**
 * The archive's log, checked before any decision: the checkpoint signed by a key of the room
 * under its origin (archive.json's), and the root of `log-entries.bin` the checkpoint's.
 */
export function readArchiveLog(
  dir: string,
  m: ArchiveMaterials,
  roomId: Uint8Array,
  hashing?: TreeHashing,
): ArchiveLog {
  const ctx = openPinnedRoom(m.room, m.keyLog, roomId, nodeBackend);
  const path = join(dir, ARCHIVE_FILES.logEntries);
  let log: ArchiveLog;
  try {
    log = new ArchiveLog(m.checkpoint!, ctx, spanOfMeta(m.meta), {
      ...(m.meta.log === undefined ? {} : { origin: m.meta.log.origin }),
      backend: nodeBackend,
      ...(hashing === undefined ? {} : { hashing }),
    });
  } catch (e) {
    if (e instanceof ArchiveError) throw new ArchiveError(join(dir, e.message));
    throw e;
  }
  const size = sizeOf(path);
  if (BigInt(size) !== log.size * 40n) {
    throw new ArchiveError(
      `${path}: ${size} bytes, but the checkpoint is of ${log.size} entries (${log.size * 40n} bytes)`,
    );
  }
  for (const chunk of logEntryChunks(path)) log.add(chunk);
  log.end(path);
  return log;
}
