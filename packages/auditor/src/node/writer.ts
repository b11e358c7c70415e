/**
 * The archive writer: `archive.json`, the room and the key log at once, the decisions appended in
 * ascending `t` (streamed to `decisions.bin`), the policies, the records and the decision log
 * when known.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { join } from 'node:path';
import { ARCHIVE_FILES, ArchiveError, type ArchiveMeta, archiveMetaJson } from '../archive.js';
import { ENERGY_STATEMENT_FILE } from '../energy.js';
import { encodeFrame, encodeFrames } from '../frames.js';

/** What an archive is written with at once; policies and records may come later. */
export interface ArchiveStart {
  readonly meta: ArchiveMeta;
  readonly room: Uint8Array;
  readonly keyLog: Uint8Array | null;
  readonly policies?: Iterable<Uint8Array>;
  readonly records?: Iterable<Uint8Array>;
}

/**
 * Writes an archive: `archive.json`, the room and the key log at once, the decisions appended in
 * ascending `t` (streamed to `decisions.bin`), the policies and records at once, when known.
 */
export class ArchiveWriter {
  private file: FileHandle | undefined;
  private buffered: Uint8Array[] = [];
  private size = 0;
  private lastT = -1n;
  private wrote = { policies: false, records: false };
  /** Decisions written. */
  decisions = 0;

  private constructor(readonly dir: string) {}

  /** Creates `dir` (or writes into it) and writes what `start` holds. */
  static async create(dir: string, start: ArchiveStart): Promise<ArchiveWriter> {
    mkdirSync(dir, { recursive: true });
    const w = new ArchiveWriter(dir);
    w.writeMeta(start.meta);
    writeFileSync(join(dir, ARCHIVE_FILES.room), start.room);
    const keyLogPath = join(dir, ARCHIVE_FILES.keyLog);
    if (start.keyLog !== null) writeFileSync(keyLogPath, start.keyLog);
    else rmSync(keyLogPath, { force: true });
    if (start.policies !== undefined) w.writePolicies(start.policies);
    if (start.records !== undefined) w.writeRecords(start.records);
    w.file = await open(join(dir, ARCHIVE_FILES.decisions), 'w');
    return w;
  }

  /** (Re)writes `archive.json`. */
  writeMeta(meta: ArchiveMeta): void {
    writeFileSync(join(this.dir, ARCHIVE_FILES.meta), archiveMetaJson(meta));
  }

  /** Writes `policies.bin`. */
  writePolicies(policies: Iterable<Uint8Array>): void {
    writeFileSync(join(this.dir, ARCHIVE_FILES.policies), encodeFrames(policies));
    this.wrote.policies = true;
  }

  /** Writes `records.bin`. */
  writeRecords(records: Iterable<Uint8Array>): void {
    writeFileSync(join(this.dir, ARCHIVE_FILES.records), encodeFrames(records));
    this.wrote.records = true;
  }

  /**
   * Writes `records.bin` from records given one at a time (a store's, streamed), each in its
   * frame, a MiB at a time; the records written.
   */
  async writeRecordsFrom(
    records: Iterable<Uint8Array> | AsyncIterable<Uint8Array>,
  ): Promise<number> {
    const f = await open(join(this.dir, ARCHIVE_FILES.records), 'w');
    let n = 0;
    let held: Uint8Array[] = [];
    let size = 0;
    try {
      for await (const r of records) {
        const frame = encodeFrame(r);
        held.push(frame);
        size += frame.length;
        n++;
        if (size >= 1 << 20) {
          await f.write(Buffer.concat(held));
          held = [];
          size = 0;
        }
      }
      if (held.length > 0) await f.write(Buffer.concat(held));
    } finally {
      await f.close();
    }
    this.wrote.records = true;
    return n;
  }

  /** Writes the server's signed statement of the energy account (`energy-statement`). */
  writeEnergyStatement(note: string): void {
    writeFileSync(join(this.dir, ENERGY_STATEMENT_FILE), note);
  }

  /**
   * Writes the decision log the archive carries: `checkpoint` (its text as served) and
   * `log-entries.bin` (the entries `0 … size − 1`, 40 bytes each, given in chunks of whole
   * entries). `archive.json`'s `log` is the caller's ({@link ArchiveWriter.writeMeta}).
   */
  async writeLog(
    checkpoint: string,
    entries: Iterable<Uint8Array> | AsyncIterable<Uint8Array>,
  ): Promise<number> {
    writeFileSync(join(this.dir, ARCHIVE_FILES.checkpoint), checkpoint);
    const f = await open(join(this.dir, ARCHIVE_FILES.logEntries), 'w');
    let n = 0;
    try {
      for await (const chunk of entries) {
        if (chunk.length % 40 !== 0) throw new TypeError('writeLog: give whole entries');
        await f.write(chunk);
        n += chunk.length / 40;
      }
    } finally {
      await f.close();
    }
    return n;
  }

  /** Removes the log's files (an export that cannot carry the log). */
  removeLog(): void {
    rmSync(join(this.dir, ARCHIVE_FILES.checkpoint), { force: true });
    rmSync(join(this.dir, ARCHIVE_FILES.logEntries), { force: true });
  }

  /** Appends a decision; its `t` (µs), when given, must not be below the one before. */
  async add(decision: Uint8Array, t?: bigint): Promise<void> {
    if (t !== undefined) {
      if (t < this.lastT) {
        throw new ArchiveError(
          `a decision at ${t} comes after one at ${this.lastT}: not in ascending t`,
        );
      }
      this.lastT = t;
    }
    const f = encodeFrame(decision);
    this.buffered.push(f);
    this.size += f.length;
    this.decisions++;
    if (this.size >= 1 << 20) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.file === undefined || this.buffered.length === 0) return;
    await this.file.write(Buffer.concat(this.buffered));
    this.buffered = [];
    this.size = 0;
  }

  /** Writes what is buffered and closes `decisions.bin` (and empty frame files not written). */
  async close(): Promise<void> {
    if (!this.wrote.policies) this.writePolicies([]);
    if (!this.wrote.records) this.writeRecords([]);
    await this.flush();
    await this.file?.close();
    this.file = undefined;
  }
}
