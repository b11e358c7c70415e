/**
 * The spool: every signed record is written here, and synced, before it is sent; it stays until
 * every configured steering server has taken it (`201` or `200`) or refused it (`400` with a
 * reason). Its layout, under the spool directory:
 * - `records/<start>-<digest>.wmh`: records some server has yet to take (`<start>` is the span's
 *   start, 20 digits, so that names sort in the order of periods);
 * - `taken/<server>/<name>`: an empty file for each server that took (or refused) the record;
 * - `done/<name>`: records every server took (the last `keep` kept);
 * - `refused/<name>` and `refused/<name>.reason`: a record a server refused, and the reason; and
 *   a spool file that does not read (a record whose bytes are not this hop's record of the span
 *   its name says, a `cursor.json` that does not parse), moved there when the spool is opened;
 * - `cursor.json`: the end of the last span cut, and the energy counter's reading there, so
 *   that a restart resumes with the next span (never two records for one span, never a gap).
 *
 * Every problem with the spool itself (a path the agent may not write, a read-only file system,
 * a file where a directory belongs, a full disk) is one line naming the path and the fix
 * ({@link spoolProblem}): at start an {@link AgentConfigError}, later a {@link SpoolWriteError}.
 */
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { bytesEqual, readHopRecord, toHex, verifyHopRecord } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import type { CounterReading } from './energy/source.js';
import { AgentConfigError } from './types.js';

/** The cursor: where the last span cut ended, and the energy reading taken at that boundary. */
export interface Cursor {
  readonly end: bigint;
  readonly reading?: CounterReading;
}

/** A spooled record. */
export interface SpooledRecord {
  readonly name: string;
  readonly start: bigint;
  readonly end: bigint;
  readonly bytes: Uint8Array;
}

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
function codeOf(e: unknown): string {
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
function kernelFsOf(path: string): string | undefined {
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

function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Writes a file durably: a temporary name, synced, renamed, the directory synced. */
function writeDurably(dir: string, name: string, data: Uint8Array | string): void {
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

const NAME = /^(\d{20})-([0-9a-f]{64})\.wmh$/;

/** C5.1: the `end` of a record's bytes (offset 77, u64 little-endian). */
function endOf(bytes: Uint8Array): bigint | undefined {
  if (bytes.length < 85) return undefined;
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getBigUint64(77, true);
}

/** The spool directory of an agent. */
export class Spool {
  private readonly records: string;
  private readonly taken: string;
  private readonly done: string;
  private readonly refused: string;
  private readonly keep: number;
  private readonly o: SpoolOptions;
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
    const abs = resolve(dir);
    const kernel = kernelFsOf(abs);
    if (kernel !== undefined) {
      throw new AgentConfigError(
        `spool ${dir}: under ${kernel}, a kernel file system that holds no files of the agent: choose a directory on a disk (such as /var/lib/wai-steering/hop-spool)`,
      );
    }
    this.records = join(dir, 'records');
    this.taken = join(dir, 'taken');
    this.done = join(dir, 'done');
    this.refused = join(dir, 'refused');
    const dirs = [
      dir,
      this.records,
      this.taken,
      this.done,
      this.refused,
      ...servers.map((s) => join(this.taken, serverId(s))),
    ];
    for (const d of dirs) {
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
    this.scan();
  }

  /** The record file name of a span and digest. */
  static nameOf(start: bigint, digestHex: string): string {
    return `${String(start).padStart(20, '0')}-${digestHex}.wmh`;
  }

  /**
   * Why a spool file is not this hop's record of the span its name says (C5.3 steps 1 to 4, the
   * name's start and digest, the hop), or `undefined` when it is.
   */
  private problemOf(name: string, bytes: Uint8Array): string | undefined {
    const m = NAME.exec(name);
    if (m === null) return 'its name is not <start>-<digest>.wmh';
    const read = readHopRecord(bytes);
    if (!read.ok) {
      const f = read.refusal.where.field;
      return `does not read as a per-hop record: ${read.refusal.reason}${f === undefined ? '' : ` at ${f}`}`;
    }
    const rec = read.value;
    if (String(rec.start).padStart(20, '0') !== m[1])
      return 'its start is not the one its name says';
    // Companion C1: the digest is SHA-256 over the bytes before `sig`.
    if (toHex(nodeBackend.sha256(rec.body)) !== m[2]) {
      return 'its digest is not the one its name says';
    }
    if (this.o.hop !== undefined && !bytesEqual(rec.hop, this.o.hop)) {
      return `a record of another hop (${toHex(rec.hop)})`;
    }
    if (this.o.room !== undefined) {
      const bad = verifyHopRecord(rec, this.o.room, nodeBackend);
      if (bad !== undefined) return `does not verify: ${bad.reason}`;
    }
    return undefined;
  }

  /** Moves a spool file that does not read to `refused/`, with its reason; said once. */
  private refuse(dir: string, name: string, reason: string): void {
    const from = join(dir, name);
    let to = name;
    for (let i = 1; existsSync(join(this.refused, to)); i++) to = `${name}.${i}`;
    try {
      renameSync(from, join(this.refused, to));
      writeFileSync(join(this.refused, `${to}.reason`), `spool ${reason}\n`);
      syncDir(this.refused);
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
    for (const dir of [this.dir, this.records, this.done, this.refused]) {
      for (const n of readdirSync(dir)) {
        if (/^\.(probe|.*\.tmp)$/.test(n)) rmSync(join(dir, n), { force: true });
      }
    }
    for (const name of readdirSync(this.records).sort()) {
      const path = join(this.records, name);
      if (!statSync(path).isFile()) {
        this.refuse(this.records, name, 'not a file');
        continue;
      }
      const bytes = new Uint8Array(readFileSync(path));
      const problem = this.problemOf(name, bytes);
      if (problem !== undefined) {
        this.refuse(this.records, name, problem);
        continue;
      }
      const start = BigInt(NAME.exec(name)![1]!);
      this.held.set(name, { name, start, end: endOf(bytes)!, bytes });
    }
    this.newest(this.done, true);
    const cursor = join(this.dir, 'cursor.json');
    if (existsSync(cursor)) {
      const why = this.cursorProblem();
      if (why !== undefined) this.refuse(this.dir, 'cursor.json', why);
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
      const problem = this.problemOf(name, bytes);
      if (problem === undefined) {
        return { name, start: BigInt(NAME.exec(name)![1]!), end: endOf(bytes)!, bytes };
      }
      if (move) this.refuse(dir, name, problem);
    }
    return undefined;
  }

  /** Why `cursor.json` does not read, or `undefined`. */
  private cursorProblem(): string | undefined {
    const read = this.readCursor();
    return typeof read === 'string' ? read : undefined;
  }

  private readCursor(): Cursor | string | undefined {
    let text: string;
    try {
      text = readFileSync(join(this.dir, 'cursor.json'), 'utf8');
    } catch (e) {
      return codeOf(e) === 'ENOENT' ? undefined : `cursor.json cannot be read (${codeOf(e)})`;
    }
    let j: unknown;
    try {
      j = JSON.parse(text);
    } catch {
      return 'cursor.json is not JSON';
    }
    const isDecimal = (v: unknown) => typeof v === 'string' && /^\d{1,40}$/.test(v);
    const isValues = (v: unknown) =>
      v !== null &&
      typeof v === 'object' &&
      !Array.isArray(v) &&
      Object.values(v as Record<string, unknown>).every(isDecimal);
    const c = j as { end?: unknown; reading?: { values?: unknown; ranges?: unknown } };
    if (c === null || typeof c !== 'object' || !isDecimal(c.end)) {
      return 'cursor.json states no end (µs, a decimal string)';
    }
    if (c.reading !== undefined) {
      if (
        !isValues(c.reading?.values) ||
        (c.reading.ranges !== undefined && !isValues(c.reading.ranges))
      ) {
        return "cursor.json's reading is not whole microjoules by series";
      }
    }
    const reading = c.reading as CounterReading | undefined;
    return { end: BigInt(c.end as string), ...(reading === undefined ? {} : { reading }) };
  }

  /** The cursor: the last span's end, from `cursor.json` or the records kept, the later. */
  cursor(): Cursor | undefined {
    const read = this.readCursor();
    let cursor = typeof read === 'string' ? undefined : read;
    // A crash between a record's write and the cursor's leaves the record the later.
    const last = [...this.held.values()].map((r) => r.end);
    for (const dir of [this.done, this.refused]) {
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
    try {
      writeDurably(this.records, rec.name, rec.bytes);
    } catch (e) {
      rmSync(join(this.records, `.${rec.name}.tmp`), { force: true });
      throw new SpoolWriteError(spoolProblem(this.records, codeOf(e)), codeOf(e));
    }
    this.held.set(rec.name, rec);
    const cursor = { end: String(rec.end), ...(reading === undefined ? {} : { reading }) };
    try {
      writeDurably(this.dir, 'cursor.json', `${JSON.stringify(cursor)}\n`);
      return { cursorWritten: true };
    } catch {
      rmSync(join(this.dir, '.cursor.json.tmp'), { force: true });
      return { cursorWritten: false };
    }
  }

  /** The records a server has yet to take, in the order of periods. */
  pending(server: string): SpooledRecord[] {
    const taken = new Set(readdirSync(join(this.taken, serverId(server))));
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
    const dir = join(this.taken, serverId(server));
    try {
      writeFileSync(join(dir, name), '');
      syncDir(dir);
      const all = this.servers.every((s) => existsSync(join(this.taken, serverId(s), name)));
      if (!all || !existsSync(join(this.records, name))) return;
      renameSync(join(this.records, name), join(this.done, name));
      this.held.delete(name);
      syncDir(this.done);
      syncDir(this.records);
      for (const s of this.servers) rmSync(join(this.taken, serverId(s), name), { force: true });
      this.prune();
    } catch (e) {
      throw new SpoolWriteError(spoolProblem(dir, codeOf(e)), codeOf(e));
    }
  }

  /** A server refused the record: a copy and the reason kept in `refused/`, then marked. */
  markRefused(server: string, name: string, bytes: Uint8Array, reason: string): void {
    try {
      writeDurably(this.refused, name, bytes);
      appendFileSync(join(this.refused, `${name}.reason`), `${server} ${reason}\n`);
    } catch (e) {
      throw new SpoolWriteError(spoolProblem(this.refused, codeOf(e)), codeOf(e));
    }
    this.markTaken(server, name);
  }

  /** The names of the records refused (by a server, or because they did not read). */
  refusedNames(): string[] {
    return readdirSync(this.refused)
      .filter((n) => !n.endsWith('.reason'))
      .sort();
  }

  /** The names of the records every server took, in the order of periods. */
  doneNames(): string[] {
    return readdirSync(this.done)
      .filter((n) => n.endsWith('.wmh'))
      .sort();
  }

  private prune(): void {
    const names = this.doneNames();
    for (const n of names.slice(0, Math.max(0, names.length - this.keep))) {
      rmSync(join(this.done, n), { force: true });
    }
  }
}
