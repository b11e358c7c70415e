/**
 * The archive: an interchange layout of a steering server's decision log, which other
 * implementations read and write. A directory of:
 *
 * - `archive.json`: `{"room": "<room id hex>", "grace_s": <the server's session grace, s>}`, and
 *   more keys allowed (the span, the server, the tolerance it documents);
 * - `room.wrd`, and `key-log.wkl` (absent when the room names no origin);
 * - `policies.bin`, `records.bin`, `decisions.bin`: each a sequence of frames (`frames.ts`) of
 *   `WSP1`, `WMH1` and `WSD1` records; the decisions in ascending `t`;
 * - `checkpoint` and `log-entries.bin`, when it carries the decision log: a checkpoint of the
 *   log as the server served it (its signature lines included), and the entries `0 … size − 1`
 *   of that checkpoint, 40 bytes each, nothing else; `archive.json` then has
 *   `"log": {"origin": "<the checkpoint's origin>"}`.
 */
import { readStrictJson } from '@wai-steering/config-text';

/** The files of an archive. */
export const ARCHIVE_FILES = {
  meta: 'archive.json',
  room: 'room.wrd',
  keyLog: 'key-log.wkl',
  policies: 'policies.bin',
  records: 'records.bin',
  decisions: 'decisions.bin',
  checkpoint: 'checkpoint',
  logEntries: 'log-entries.bin',
} as const;

/** `archive.json`. */
export interface ArchiveMeta {
  /** The room id, 64 lowercase hexadecimal digits. */
  readonly room: string;
  /** The server's session grace in whole seconds (the load replay's, §9.2). */
  readonly grace_s: number;
  /** The decision log the archive carries (its `checkpoint` and `log-entries.bin`). */
  readonly log?: { readonly origin: string };
  readonly [key: string]: unknown;
}

/** An `archive.json` that does not say what the layout requires. */
export class ArchiveError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ArchiveError';
  }
}

const HEX64 = /^[0-9a-f]{64}$/;

/** Reads `archive.json`'s text; an {@link ArchiveError} naming what is wrong. */
export function parseArchiveMeta(text: string): ArchiveMeta {
  // Strictly: a name given twice (`grace_s` twice) is refused, never the last value taken.
  const read = readStrictJson(text);
  if (!read.ok) throw new ArchiveError(`archive.json: ${read.problem}`);
  const value = read.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ArchiveError('archive.json is not a JSON object');
  }
  const o = value as Record<string, unknown>;
  if (typeof o.room !== 'string' || !HEX64.test(o.room.toLowerCase())) {
    throw new ArchiveError('archive.json: "room" is not 64 hexadecimal digits');
  }
  const grace = o.grace_s;
  if (typeof grace !== 'number' || !Number.isInteger(grace) || grace < 0 || grace > 0xffff_ffff) {
    throw new ArchiveError('archive.json: "grace_s" is not a whole number of seconds');
  }
  if (o.log !== undefined && o.log !== null) {
    const log = o.log as Record<string, unknown>;
    if (typeof log !== 'object' || Array.isArray(log) || typeof log.origin !== 'string') {
      throw new ArchiveError('archive.json: "log" is not {"origin": "<the log\'s origin>"}');
    }
  }
  const { log, ...rest } = o;
  return {
    ...rest,
    room: o.room.toLowerCase(),
    grace_s: grace,
    ...(log === undefined || log === null ? {} : { log: log as { origin: string } }),
  };
}

/** `archive.json`'s text for `meta`, keys in the layout's order first. */
export function archiveMetaJson(meta: ArchiveMeta): string {
  const { room, grace_s, ...rest } = meta;
  return `${JSON.stringify({ room, grace_s, ...rest }, null, 2)}\n`;
}
