/**
 * The spool: every signed record is written here, and synced, before it is sent; it stays until
 * every configured steering server has taken it (`201` or `200`) or refused it (`400` with a
 * reason). The states of a record's file, under the spool directory:
 * - `records/<start>-<digest>.wmh`: cut, and some server has yet to take it;
 * - `taken/<server>/<name>`: an empty mark for each server that took (or refused) it;
 * - `done/<name>`: every server took it (the last `keep` kept);
 * - `refused/<name>` and `refused/<name>.reason`: a server refused it, and the reason; or it is a
 *   spool file that does not read (a record whose bytes are not this hop's record of the span its
 *   name says, a `cursor.json` that does not parse), moved there when the spool is opened.
 *
 * Beside them `cursor.json` ({@link readCursor}) holds the end of the last span cut. The
 * directories and their checks at start are in `directories.ts`; a record file's name and what
 * makes its bytes read, in `record-file.ts`.
 */
import {
  appendFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import type { CounterReading } from '../energy/source.js';
import { AgentConfigError } from '../types.js';
import { CURSOR_FILE, type Cursor, readCursor, writeCursor } from './cursor.js';
import {
  codeOf,
  openSpoolDirs,
  type SpoolDirs,
  SpoolWriteError,
  spoolProblem,
  syncDir,
  takenDir,
  writeDurably,
} from './directories.js';
import {
  type RecordFileChecks,
  readRecordFile,
  recordFileName,
  type SpooledRecord,
} from './record-file.js';

/** Options of a {@link Spool}. */
export interface SpoolOptions {
  /** Records every server took kept in `done/` (default 10 000). */
  readonly keep?: number;
  /** The room whose records the spool holds: a record of another room does not read. */
  readonly room?: Uint8Array;
  /** The hop whose records the spool holds: a record of another hop does not read. */
  readonly hop?: Uint8Array;
  /** Called once for each spool file that did not read, after it was moved to `refused/`. */
  readonly onRefused?: (file: string, reason: string) => void;
}

/** The spool directory of an agent. */
export class Spool {
  private readonly dirs: SpoolDirs;
  private readonly keep: number;
  private readonly o: SpoolOptions;
  private readonly checks: RecordFileChecks;
  /** The records of `records/` that read, by name (checked once, when the spool is opened). */
  private readonly held = new Map<string, SpooledRecord>();
  /** The spool files moved to `refused/` because they did not read. */
  refusedFiles = 0;

  /**
   * Opens the spool: refuses a path under a kernel file system, creates what is missing, checks
   * that it can write each directory, and moves every file that does not read to `refused/`.
   * Throws an {@link AgentConfigError} naming the path and the fix when it cannot.
   */
  constructor(
    readonly dir: string,
    private readonly servers: readonly string[],
    options: number | SpoolOptions = {},
  ) {
    this.o = typeof options === 'number' ? { keep: options } : options;
    this.keep = this.o.keep ?? 10_000;
    this.checks = { room: this.o.room, hop: this.o.hop };
    this.dirs = openSpoolDirs(dir, servers);
    this.scan();
  }

  /** The record file name of a span and digest. */
  static nameOf(start: bigint, digestHex: string): string {
    return recordFileName(start, digestHex);
  }

  /** Moves a spool file that does not read to `refused/`, with its reason; said once. */
  private refuse(dir: string, name: string, reason: string): void {
    const refused = this.dirs.refused;
    const from = join(dir, name);
    let to = name;
    for (let i = 1; existsSync(join(refused, to)); i++) to = `${name}.${i}`;
    try {
      renameSync(from, join(refused, to));
      writeFileSync(join(refused, `${to}.reason`), `spool ${reason}\n`);
      syncDir(refused);
      syncDir(dir);
    } catch (e) {
      throw new AgentConfigError(spoolProblem(from, codeOf(e)));
    }
    this.refusedFiles++;
    this.o.onRefused?.(from, reason);
  }

  /**
   * Checks what the spool holds: every file of `records/` (all are sent), the newest file of
   * `done/` that reads (the cursor's), and `cursor.json`. Unfinished writes of a crash (the
   * temporary `.<name>.tmp`) are removed: their record was not cut.
   */
  private scan(): void {
    const { records, done, refused } = this.dirs;
    for (const dir of [this.dir, records, done, refused]) {
      for (const n of readdirSync(dir)) {
        if (/^\.(probe|.*\.tmp)$/.test(n)) rmSync(join(dir, n), { force: true });
      }
    }
    for (const name of readdirSync(records).sort()) {
      const path = join(records, name);
      if (!statSync(path).isFile()) {
        this.refuse(records, name, 'not a file');
        continue;
      }
      const read = readRecordFile(name, new Uint8Array(readFileSync(path)), this.checks);
      if (typeof read === 'string') {
        this.refuse(records, name, read);
        continue;
      }
      this.held.set(name, read);
    }
    this.newest(done, true);
    if (existsSync(join(this.dir, CURSOR_FILE))) {
      const read = readCursor(this.dir);
      if (typeof read === 'string') this.refuse(this.dir, CURSOR_FILE, read);
    }
  }

  /**
   * The newest record of a directory that reads (by name, which sorts in period order); when
   * `move`, the newer files that do not read are moved to `refused/` on the way.
   */
  private newest(dir: string, move: boolean): SpooledRecord | undefined {
    const names = readdirSync(dir)
      .filter((n) => !n.endsWith('.reason') && !n.startsWith('.'))
      .sort()
      .reverse();
    for (const name of names) {
      const path = join(dir, name);
      let bytes: Uint8Array;
      try {
        if (!statSync(path).isFile()) throw new Error('not a file');
        bytes = new Uint8Array(readFileSync(path));
      } catch {
        if (move) this.refuse(dir, name, 'not a readable file');
        continue;
      }
      const read = readRecordFile(name, bytes, this.checks);
      if (typeof read !== 'string') return read;
      if (move) this.refuse(dir, name, read);
    }
    return undefined;
  }

  /** The cursor: the last span's end, from `cursor.json` or the records kept, the later. */
  cursor(): Cursor | undefined {
    const read = readCursor(this.dir);
    let cursor = typeof read === 'string' ? undefined : read;
    // A crash between a record's write and the cursor's leaves the record the later.
    const last = [...this.held.values()].map((r) => r.end);
    for (const dir of [this.dirs.done, this.dirs.refused]) {
      const r = this.newest(dir, false);
      if (r !== undefined) last.push(r.end);
    }
    for (const end of last) {
      if (cursor === undefined || end > cursor.end) cursor = { end };
    }
    return cursor;
  }

  /**
   * Writes a record and the new cursor, both synced, before the record is sent. Throws a
   * {@link SpoolWriteError} when the record could not be written; once the record is written
   * it is durable (a cursor that could not be written follows from the record at a restart).
   */
  add(rec: SpooledRecord, reading: CounterReading | undefined): { cursorWritten: boolean } {
    const records = this.dirs.records;
    try {
      writeDurably(records, rec.name, rec.bytes);
    } catch (e) {
      rmSync(join(records, `.${rec.name}.tmp`), { force: true });
      throw new SpoolWriteError(spoolProblem(records, codeOf(e)), codeOf(e));
    }
    this.held.set(rec.name, rec);
    return { cursorWritten: writeCursor(this.dir, rec.end, reading) };
  }

  /** The records a server has yet to take, in the order of periods. */
  pending(server: string): SpooledRecord[] {
    const taken = new Set(readdirSync(takenDir(this.dirs, server)));
    return [...this.held.values()]
      .filter((r) => !taken.has(r.name))
      .sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  /**
   * A server took the record (or refused it): marked; when every server has, it is done.
   * Throws a {@link SpoolWriteError} when the spool cannot be written (the record is then sent
   * again at a restart, which a server takes as already held).
   */
  markTaken(server: string, name: string): void {
    const { records, done } = this.dirs;
    const dir = takenDir(this.dirs, server);
    try {
      writeFileSync(join(dir, name), '');
      syncDir(dir);
      const all = this.servers.every((s) => existsSync(join(takenDir(this.dirs, s), name)));
      if (!all || !existsSync(join(records, name))) return;
      renameSync(join(records, name), join(done, name));
      this.held.delete(name);
      syncDir(done);
      syncDir(records);
      for (const s of this.servers) rmSync(join(takenDir(this.dirs, s), name), { force: true });
      this.prune();
    } catch (e) {
      throw new SpoolWriteError(spoolProblem(dir, codeOf(e)), codeOf(e));
    }
  }

  /** A server refused the record: a copy and the reason kept in `refused/`, then marked. */
  markRefused(server: string, name: string, bytes: Uint8Array, reason: string): void {
    const refused = this.dirs.refused;
    try {
      writeDurably(refused, name, bytes);
      appendFileSync(join(refused, `${name}.reason`), `${server} ${reason}\n`);
    } catch (e) {
      throw new SpoolWriteError(spoolProblem(refused, codeOf(e)), codeOf(e));
    }
    this.markTaken(server, name);
  }

  /** The names of the records refused (by a server, or because they did not read). */
  refusedNames(): string[] {
    return readdirSync(this.dirs.refused)
      .filter((n) => !n.endsWith('.reason'))
      .sort();
  }

  /** The names of the records every server took, in the order of periods. */
  doneNames(): string[] {
    return readdirSync(this.dirs.done)
      .filter((n) => n.endsWith('.wmh'))
      .sort();
  }

  private prune(): void {
    const names = this.doneNames();
    for (const n of names.slice(0, Math.max(0, names.length - this.keep))) {
      rmSync(join(this.dirs.done, n), { force: true });
    }
  }
}
