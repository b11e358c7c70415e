/**
 * `@wai-steering/auditor/node`: archives on disk. Reading and writing the archive's directory,
 * the decisions streamed from `decisions.bin` in chunks (memory bounded by the sessions and the
 * records, not the decisions), and the audit with `jobs` threads verifying the decisions (the
 * signatures are the hot part: `jobs − 1` workers and this thread, which also replays the loads
 * in order).
 */
import {
  closeSync,
  constants,
  fstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readSync,
  rmSync,
  type Stats,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { nodeBackend } from '@wai-steering/wire/node';
import {
  ARCHIVE_FILES,
  ArchiveError,
  type ArchiveMeta,
  archiveMetaJson,
  parseArchiveMeta,
} from './archive.js';
import {
  Audit,
  type AuditResult,
  type AuditSink,
  auditJsonParts,
  findingJson,
  type InconsistentLoad,
  type RefusedResult,
} from './audit.js';
import { encodeFrame, FrameError, FrameReader, MAX_FRAME } from './frames.js';
import { type PackedRefusals, unpackVerdicts } from './internal/pack.js';
import { ArchiveLog, type LogSpan } from './log.js';
import type { Series } from './series.js';
import { DecisionVerifier, openPinnedRoom, type Verdict } from './verdict.js';

/** The most bytes `archive.json` may hold. */
export const MAX_META_BYTES = 1 << 20;
/** The archive's files are read in chunks of this many bytes. */
const CHUNK = 1 << 20;
/** And given to the frame reader in slices of this many. */
const SLICE = 1 << 16;

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

/** One of an archive's files, open: a regular file, and its size when opened. */
interface OpenFile {
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
function openFile(path: string, optional = false): OpenFile | null {
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

/** Reads `length` bytes at `position`, fewer only at the end of the file. */
function readAt(fd: number, into: Uint8Array, position: number): number {
  let n = 0;
  while (n < into.length) {
    const got = readSync(fd, into, n, into.length - n, position + n);
    if (got === 0) break;
    n += got;
  }
  return n;
}

/** A whole small file (its size checked first); closes it. */
function readWhole(f: OpenFile, max: number): Uint8Array {
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

function readFile(dir: string, name: string, max: number, optional = false): Uint8Array | null {
  const f = openFile(join(dir, name), optional);
  return f === null ? null : readWhole(f, max);
}

/** A {@link FrameError} of the file at `path` as the one line of an {@link ArchiveError}. */
function frameError(path: string, e: unknown): unknown {
  return e instanceof FrameError
    ? new ArchiveError(`${path}: ${e.message} (at byte ${e.offset})`)
    : e;
}

/**
 * The frames of one of an archive's files, read from the file at each iteration in chunks of
 * 1 MiB (the file opened as {@link openFile} opens it, each frame's length checked against what
 * is left of the file before it is allocated).
 */
class FileFrames implements Iterable<Uint8Array> {
  constructor(private readonly path: string) {}

  *[Symbol.iterator](): Iterator<Uint8Array> {
    const f = openFile(this.path)!;
    try {
      const reader = new FrameReader(f.size);
      let at = 0;
      while (at < f.size) {
        const chunk = new Uint8Array(Math.min(CHUNK, f.size - at));
        const n = readAt(f.fd, chunk, at);
        if (n === 0) break;
        at += n;
        for (let o = 0; o < n; o += SLICE) {
          let frames: Uint8Array[];
          try {
            frames = reader.push(chunk.subarray(o, Math.min(n, o + SLICE)));
          } catch (e) {
            throw frameError(this.path, e);
          }
          yield* frames;
        }
      }
      try {
        reader.end();
      } catch (e) {
        throw frameError(this.path, e);
      }
    } finally {
      closeSync(f.fd);
    }
  }
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
    closeSync(openFile(join(dir, name))!.fd);
  }
  return {
    meta,
    room,
    keyLog,
    checkpoint,
    policies: new FileFrames(join(dir, ARCHIVE_FILES.policies)),
    records: new FileFrames(join(dir, ARCHIVE_FILES.records)),
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
 * `await` per frame).
 */
async function* decisionBatches(
  dir: string,
  onBytes?: (read: number, size: number) => void,
): AsyncGenerator<Uint8Array[]> {
  const path = join(dir, ARCHIVE_FILES.decisions);
  const f = openFile(path)!;
  const reader = new FrameReader(f.size);
  try {
    // The size it had when opened, no more: a file that grows is read as it was. Read
    // synchronously a chunk at a time (a stream's machinery cost a tenth of a decision's
    // signature), and given a slice at a time: a chunk of tiny frames is not a million views.
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
    if (e instanceof FrameError) throw frameError(path, e);
    if (e instanceof ArchiveError) throw e;
    throw new ArchiveError(`${path}: cannot read (${(e as NodeJS.ErrnoException).code ?? e})`);
  } finally {
    closeSync(f.fd);
  }
}

/** Options of {@link auditArchive}. */
export interface AuditArchiveOptions {
  /** The room the audit is pinned to. */
  readonly roomId: Uint8Array;
  /** The grace (whole seconds); `archive.json`'s `grace_s` by default. */
  readonly graceS?: number;
  readonly loadTolerance?: number;
  /**
   * Threads verifying the decisions: 1 (default) verifies on this thread; N uses N − 1 worker
   * threads and this one.
   */
  readonly jobs?: number;
  /** Called now and then with the decisions audited and the bytes of `decisions.bin` read. */
  readonly onProgress?: (decisions: number, bytes: number, totalBytes: number) => void;
}

/** The worker's entry, next to this module in `dist/`. */
function workerUrl(): URL {
  const here = new URL(import.meta.url);
  // Run from the sources (tests), the built worker is in `dist/`.
  return here.pathname.endsWith('.ts')
    ? new URL('../dist/worker.js', here)
    : new URL('./worker.js', here);
}

const BATCH = 256;

/** A pool of workers verifying batches of decisions, answers in the order asked. */
class VerifyPool {
  private readonly workers: Worker[] = [];
  private readonly waiting = new Map<number, (v: Verdict[] | Error) => void>();
  private next = 0;
  private failed: Error | undefined;
  /** Each batch's count of decisions, by id. */
  private readonly sizes = new Map<number, number>();

  constructor(jobs: number, dir: string, roomHex: string) {
    const unpack = (id: number, buf: Uint8Array, refused: PackedRefusals): Verdict[] => {
      const n = this.sizes.get(id) ?? 0;
      this.sizes.delete(id);
      return unpackVerdicts(buf, refused, n);
    };
    for (let i = 0; i < jobs; i++) {
      const w = new Worker(workerUrl(), { workerData: { dir, roomId: roomHex } });
      w.on(
        'message',
        (m: { id: number; buf?: Uint8Array; refused?: PackedRefusals; error?: string }) => {
          const done = this.waiting.get(m.id);
          this.waiting.delete(m.id);
          done?.(
            m.error !== undefined ? new ArchiveError(m.error) : unpack(m.id, m.buf!, m.refused!),
          );
        },
      );
      w.on('error', (e) => this.fail(e));
      this.workers.push(w);
    }
  }

  private fail(e: Error): void {
    this.failed = e;
    for (const done of this.waiting.values()) done(e);
    this.waiting.clear();
  }

  verify(batch: Uint8Array[]): Promise<Verdict[]> {
    if (this.failed !== undefined) return Promise.reject(this.failed);
    const id = this.next++;
    this.sizes.set(id, batch.length);
    const w = this.workers[id % this.workers.length]!;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, (v) => (v instanceof Error ? reject(v) : resolve(v)));
      // One buffer of the batch, transferred: a frame is a view of a 1 MiB chunk, which a
      // structured clone would copy whole.
      let n = 0;
      for (const f of batch) n += f.length;
      const buf = new Uint8Array(n);
      const ends = new Uint32Array(batch.length);
      let o = 0;
      batch.forEach((f, i) => {
        buf.set(f, o);
        o += f.length;
        ends[i] = o;
      });
      w.postMessage({ id, buf, ends }, [buf.buffer, ends.buffer]);
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}

/** Audits the archive in `dir`. An {@link ArchiveError} for an archive that does not read. */
/**
 * The refusals and inconsistent loads an audit does not hold, each kept in a temporary file as it
 * is found (its JSON, after a comma), for the `--json` result: memory does not grow with them.
 * The directory is made at the first one.
 */
class Spill implements AuditSink {
  private dir: string | undefined;
  private readonly files = new Map<
    'refused' | 'inconsistent',
    { fd: number; pending: string[]; size: number }
  >();

  refused(r: RefusedResult): void {
    this.add('refused', `,${findingJson(r)}`);
  }

  inconsistent(l: InconsistentLoad): void {
    this.add('inconsistent', `,${findingJson(l)}`);
  }

  private add(kind: 'refused' | 'inconsistent', json: string): void {
    let f = this.files.get(kind);
    if (f === undefined) {
      this.dir ??= mkdtempSync(join(tmpdir(), 'wai-audit-'));
      f = { fd: openSync(join(this.dir, kind), 'w+'), pending: [], size: 0 };
      this.files.set(kind, f);
    }
    f.pending.push(json);
    f.size += json.length;
    if (f.size >= CHUNK) this.flush(f);
  }

  private flush(f: { fd: number; pending: string[]; size: number }): void {
    if (f.pending.length === 0) return;
    writeSync(f.fd, f.pending.join(''), null, 'latin1');
    f.pending = [];
    f.size = 0;
  }

  /** A kind's entries as written (ASCII JSON), a chunk at a time. */
  *chunks(kind: 'refused' | 'inconsistent'): Generator<string> {
    const f = this.files.get(kind);
    if (f === undefined) return;
    this.flush(f);
    const buf = Buffer.allocUnsafe(CHUNK);
    for (let at = 0; ; ) {
      const n = readSync(f.fd, buf, 0, CHUNK, at);
      if (n === 0) return;
      at += n;
      yield buf.toString('latin1', 0, n);
    }
  }

  dispose(): void {
    for (const f of this.files.values()) closeSync(f.fd);
    this.files.clear();
    if (this.dir !== undefined) rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
  }
}

/** What {@link auditArchive} gives. */
export interface ArchiveAudit {
  /**
   * The result: its `refused` and `loads.inconsistent` are the first 500 of each
   * (all are in {@link ArchiveAudit.writeJson}'s JSON); `findings` counts them all.
   */
  readonly result: AuditResult;
  readonly series: Series;
  readonly meta: ArchiveMeta;
  /** Refused decisions, all of them. */
  readonly refused: number;
  /** Inconsistent loads, all of them. */
  readonly inconsistent: number;
  /**
   * Writes the whole `--json` result (docs/audit.md, its keys in order, no newline) to `write`,
   * a chunk at a time, awaiting each answer that is a promise; the refusals and inconsistent
   * loads past the first come from the temporary files they were kept in.
   */
  writeJson(write: (chunk: string) => unknown): Promise<void>;
  /** Removes the temporary files (idempotent); the JSON cannot be written after. */
  dispose(): void;
}

/** Audits the archive in `dir`. An {@link ArchiveError} for an archive that does not read. */
export async function auditArchive(
  dir: string,
  options: AuditArchiveOptions,
): Promise<ArchiveAudit> {
  const spill = new Spill();
  let done: Awaited<ReturnType<typeof runAudit>>;
  try {
    done = await runAudit(dir, options, spill);
  } catch (e) {
    spill.dispose();
    throw e;
  }
  const { result, series, meta, refused, inconsistent } = done;
  return {
    result,
    series,
    meta,
    refused,
    inconsistent,
    async writeJson(write) {
      const p = auditJsonParts(result);
      await write(p.head + result.refused.map(findingJson).join(','));
      for (const c of spill.chunks('refused')) await write(c);
      await write(p.middle + result.loads.inconsistent.map(findingJson).join(','));
      for (const c of spill.chunks('inconsistent')) await write(c);
      await write(p.tail);
    },
    dispose: () => spill.dispose(),
  };
}

async function runAudit(
  dir: string,
  options: AuditArchiveOptions,
  sink: AuditSink,
): Promise<ReturnType<Audit['finish']> & { meta: ArchiveMeta }> {
  const m = readArchiveMaterials(dir);
  const roomHex = Buffer.from(options.roomId).toString('hex');
  if (m.meta.room !== roomHex) {
    throw new ArchiveError(
      `${join(dir, ARCHIVE_FILES.meta)}: the archive is of the room ${m.meta.room}, not ${roomHex}`,
    );
  }
  const jobs = Math.max(1, Math.min(options.jobs ?? 1, Math.max(64, availableParallelism())));
  const log = m.checkpoint === null ? undefined : readArchiveLog(dir, m, options.roomId);
  const audit = new Audit(m, {
    ...(log === undefined ? {} : { log }),
    roomId: options.roomId,
    graceS: options.graceS ?? m.meta.grace_s,
    ...(options.loadTolerance === undefined ? {} : { loadTolerance: options.loadTolerance }),
    backend: nodeBackend,
    verify: jobs > 1 ? 'external' : 'local',
    sink,
  });
  let total = 0;
  let bytes = 0;
  let lastProgress = 0;
  const progress = (): void => {
    const now = Date.now();
    if (options.onProgress !== undefined && now - lastProgress > 100) {
      lastProgress = now;
      options.onProgress(audit.decisions, bytes, total);
    }
  };
  const batches = decisionBatches(dir, (n, size) => {
    bytes = n;
    total = size;
  });
  if (jobs === 1) {
    for await (const frames of batches) {
      for (const f of frames) audit.add(f);
      progress();
    }
  } else {
    // `jobs` threads verify: `jobs − 1` workers, and this one, which also reads and replays. It
    // keeps each worker two batches ahead and verifies a batch itself whenever they are, so that
    // no thread waits on another (on 2 cores, two workers and this thread would be three
    // threads on two cores, and this one's replay would wait for a core).
    const pool = new VerifyPool(jobs - 1, dir, roomHex);
    const local = new DecisionVerifier({ ...m, roomId: options.roomId, backend: nodeBackend });
    const ahead = 2 * (jobs - 1);
    try {
      /** Batches in archive order; `verdicts` set when known. */
      const queue: {
        batch: Uint8Array[];
        verdicts?: Verdict[];
        error?: Error;
        wait?: Promise<void>;
      }[] = [];
      let atWorkers = 0;
      /** Replays the batches at the head of the queue whose verdicts are known. */
      const replay = (): void => {
        while (queue.length > 0) {
          const head = queue[0]!;
          if (head.error !== undefined) throw head.error;
          if (head.verdicts === undefined) return;
          queue.shift();
          const v = head.verdicts;
          head.batch.forEach((f, i) => {
            audit.add(f, v[i]);
          });
          progress();
        }
      };
      /** Waits for the head batch's verdicts (from a worker), then replays what is known. */
      const waitHead = async (): Promise<void> => {
        const head = queue[0];
        if (head !== undefined && head.verdicts === undefined && head.error === undefined) {
          await head.wait;
        }
        replay();
      };
      const send = (batch: Uint8Array[]): void => {
        atWorkers++;
        const entry: (typeof queue)[number] = { batch };
        entry.wait = pool.verify(batch).then(
          (v) => {
            entry.verdicts = v;
            atWorkers--;
          },
          (e: Error) => {
            entry.error = e;
            atWorkers--;
          },
        );
        queue.push(entry);
      };
      const verifyHere = (batch: Uint8Array[]): void => {
        queue.push({ batch, verdicts: batch.map((f) => local.verify(f)) });
      };
      let batch: Uint8Array[] = [];
      for await (const frames of batches) {
        for (const f of frames) {
          batch.push(f);
          if (batch.length < BATCH) continue;
          if (atWorkers < ahead) send(batch);
          else {
            verifyHere(batch);
            // Let the workers' answers in before the next batch.
            await new Promise((r) => setImmediate(r));
          }
          batch = [];
          replay();
          // Memory: at most a few batches past the head wait to be replayed.
          while (queue.length > ahead + 4) await waitHead();
        }
      }
      if (batch.length > 0) send(batch);
      while (queue.length > 0) await waitHead();
    } finally {
      await pool.close();
    }
  }
  options.onProgress?.(audit.decisions, total, total);
  if (log?.needsRescan) {
    for (const chunk of logEntryChunks(join(dir, ARCHIVE_FILES.logEntries))) log.rescan(chunk);
  }
  return { ...audit.finish(), meta: m.meta };
}

const U64_MAX = (1n << 64n) - 1n;

/** The span `archive.json` states (`{"from": "<µs>", "to": "<µs>"}`), or all of time. */
function spanOfMeta(meta: ArchiveMeta): LogSpan {
  const span = meta.span as { from?: unknown; to?: unknown } | undefined;
  const read = (v: unknown, d: bigint): bigint =>
    typeof v === 'string' && /^[0-9]{1,20}$/.test(v) && BigInt(v) <= U64_MAX ? BigInt(v) : d;
  if (span === null || typeof span !== 'object') return { from: 0n, to: U64_MAX };
  return { from: read(span.from, 0n), to: read(span.to, U64_MAX) };
}

/** Entries of the log, whole ones a chunk of about 1 MiB at a time. */
function* logEntryChunks(path: string): Generator<Uint8Array> {
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
function readArchiveLog(dir: string, m: ArchiveMaterials, roomId: Uint8Array): ArchiveLog {
  const ctx = openPinnedRoom(m.room, m.keyLog, roomId, nodeBackend);
  const path = join(dir, ARCHIVE_FILES.logEntries);
  let log: ArchiveLog;
  try {
    log = new ArchiveLog(m.checkpoint!, ctx, spanOfMeta(m.meta), {
      ...(m.meta.log === undefined ? {} : { origin: m.meta.log.origin }),
      backend: nodeBackend,
    });
  } catch (e) {
    if (e instanceof ArchiveError) throw new ArchiveError(join(dir, e.message));
    throw e;
  }
  const f = openFile(path)!;
  closeSync(f.fd);
  if (BigInt(f.size) !== log.size * 40n) {
    throw new ArchiveError(
      `${path}: ${f.size} bytes, but the checkpoint is of ${log.size} entries (${log.size * 40n} bytes)`,
    );
  }
  for (const chunk of logEntryChunks(path)) log.add(chunk);
  log.end(path);
  return log;
}

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
    writeFileSync(join(this.dir, ARCHIVE_FILES.policies), framesBytes(policies));
    this.wrote.policies = true;
  }

  /** Writes `records.bin`. */
  writeRecords(records: Iterable<Uint8Array>): void {
    writeFileSync(join(this.dir, ARCHIVE_FILES.records), framesBytes(records));
    this.wrote.records = true;
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

function framesBytes(records: Iterable<Uint8Array>): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const r of records) parts.push(encodeFrame(r));
  return Buffer.concat(parts);
}
