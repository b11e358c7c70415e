/**
 * The spool: every signed record is written here, and synced, before it is sent; it stays until
 * every configured steering server has taken it (`201` or `200`) or refused it (`400` with a
 * reason). Its layout, under the spool directory:
 * - `records/<start>-<digest>.wmh`: records some server has yet to take (`<start>` is the span's
 *   start, 20 digits, so that names sort in the order of periods);
 * - `taken/<server>/<name>`: an empty file for each server that took (or refused) the record;
 * - `done/<name>`: records every server took (the last `keep` kept);
 * - `refused/<name>` and `refused/<name>.reason`: a record a server refused, and the reason;
 * - `cursor.json`: the end of the last span cut, and the energy counter's reading there, so
 *   that a restart resumes with the next span (never two records for one span, never a gap).
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
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import type { CounterReading } from './energy/source.js';

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

/** A short stable name of a server URL, for its `taken/` folder. */
export function serverId(url: string): string {
  return createHash('sha256').update(url).digest('hex').slice(0, 16);
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

function spanOfName(name: string): { start: bigint } | undefined {
  const m = /^(\d{20})-[0-9a-f]{64}\.wmh$/.exec(name);
  return m === null ? undefined : { start: BigInt(m[1]!) };
}

/** The spool directory of an agent. */
export class Spool {
  private readonly records: string;
  private readonly taken: string;
  private readonly done: string;
  private readonly refused: string;

  constructor(
    readonly dir: string,
    private readonly servers: readonly string[],
    private readonly keep = 10_000,
  ) {
    this.records = join(dir, 'records');
    this.taken = join(dir, 'taken');
    this.done = join(dir, 'done');
    this.refused = join(dir, 'refused');
    for (const d of [dir, this.records, this.taken, this.done, this.refused]) {
      mkdirSync(d, { recursive: true });
    }
    for (const s of servers) mkdirSync(join(this.taken, serverId(s)), { recursive: true });
  }

  /** The record file name of a span and digest. */
  static nameOf(start: bigint, digestHex: string): string {
    return `${String(start).padStart(20, '0')}-${digestHex}.wmh`;
  }

  /** The cursor: the last span's end, from `cursor.json` or the records kept, the later. */
  cursor(): Cursor | undefined {
    let cursor: Cursor | undefined;
    try {
      const j = JSON.parse(readFileSync(join(this.dir, 'cursor.json'), 'utf8')) as {
        end: string;
        reading?: CounterReading;
      };
      cursor = { end: BigInt(j.end), ...(j.reading === undefined ? {} : { reading: j.reading }) };
    } catch {
      cursor = undefined;
    }
    // A crash between a record's write and the cursor's leaves the record the later.
    for (const dir of [this.records, this.done, this.refused]) {
      for (const name of readdirSync(dir)) {
        if (spanOfName(name) === undefined) continue;
        const end = endOf(readFileSync(join(dir, name)));
        if (end !== undefined && (cursor === undefined || end > cursor.end)) cursor = { end };
      }
    }
    return cursor;
  }

  /** Writes a record and the new cursor, both synced, before the record is sent. */
  add(rec: SpooledRecord, reading: CounterReading | undefined): void {
    writeDurably(this.records, rec.name, rec.bytes);
    const cursor = { end: String(rec.end), ...(reading === undefined ? {} : { reading }) };
    writeDurably(this.dir, 'cursor.json', `${JSON.stringify(cursor)}\n`);
  }

  /** The records a server has yet to take, in the order of periods. */
  pending(server: string): SpooledRecord[] {
    const taken = new Set(readdirSync(join(this.taken, serverId(server))));
    return readdirSync(this.records)
      .filter((n) => spanOfName(n) !== undefined && !taken.has(n))
      .sort()
      .map((name) => {
        const bytes = new Uint8Array(readFileSync(join(this.records, name)));
        return { name, start: spanOfName(name)!.start, end: endOf(bytes) ?? 0n, bytes };
      });
  }

  /** A server took the record (or refused it): marked; when every server has, it is done. */
  markTaken(server: string, name: string): void {
    const dir = join(this.taken, serverId(server));
    writeFileSync(join(dir, name), '');
    syncDir(dir);
    const all = this.servers.every((s) => existsSync(join(this.taken, serverId(s), name)));
    if (!all || !existsSync(join(this.records, name))) return;
    renameSync(join(this.records, name), join(this.done, name));
    syncDir(this.done);
    syncDir(this.records);
    for (const s of this.servers) rmSync(join(this.taken, serverId(s), name), { force: true });
    this.prune();
  }

  /** A server refused the record: a copy and the reason kept in `refused/`, then marked. */
  markRefused(server: string, name: string, bytes: Uint8Array, reason: string): void {
    writeDurably(this.refused, name, bytes);
    appendFileSync(join(this.refused, `${name}.reason`), `${server} ${reason}\n`);
    this.markTaken(server, name);
  }

  /** The names of the records refused. */
  refusedNames(): string[] {
    return readdirSync(this.refused)
      .filter((n) => n.endsWith('.wmh'))
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

/** C5.1: the `end` of a record's bytes (offset 77, u64 little-endian). */
function endOf(bytes: Uint8Array): bigint | undefined {
  if (bytes.length < 85) return undefined;
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getBigUint64(77, true);
}
