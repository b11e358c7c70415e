/**
 * `@wai-steering/auditor/node`: archives on disk. Reading and writing the archive's directory,
 * the decisions streamed from `decisions.bin` in chunks (memory bounded by the sessions and the
 * records, not the decisions), and the audit with `jobs` threads verifying the decisions (the
 * signatures are the hot part: `jobs − 1` workers and this thread, which also replays the loads
 * in order).
 */
import {
  createReadStream,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
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
import { Audit, type AuditResult } from './audit.js';
import { decodeFrames, encodeFrame, FrameError, FrameReader } from './frames.js';
import { type PackedRefusals, unpackVerdicts } from './internal/pack.js';
import type { Series } from './series.js';
import { DecisionVerifier, type Verdict } from './verdict.js';

/** An archive's materials: everything but the decisions. */
export interface ArchiveMaterials {
  readonly meta: ArchiveMeta;
  readonly room: Uint8Array;
  readonly keyLog: Uint8Array | null;
  readonly policies: Uint8Array[];
  readonly records: Uint8Array[];
}

function readFile(dir: string, name: string, optional = false): Uint8Array | null {
  const path = join(dir, name);
  try {
    return new Uint8Array(readFileSync(path));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (optional && code === 'ENOENT') return null;
    throw new ArchiveError(`${path}: cannot read (${code ?? (e as Error).message})`);
  }
}

function framesOf(dir: string, name: string): Uint8Array[] {
  const bytes = readFile(dir, name)!;
  try {
    return decodeFrames(bytes);
  } catch (e) {
    if (e instanceof FrameError) {
      throw new ArchiveError(`${join(dir, name)}: ${e.message} (at byte ${e.offset})`);
    }
    throw e;
  }
}

/** Reads an archive's `archive.json`, room, key log, policies and records. */
export function readArchiveMaterials(dir: string): ArchiveMaterials {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new ArchiveError(`${dir}: not a directory`);
  }
  const metaBytes = readFile(dir, ARCHIVE_FILES.meta)!;
  let meta: ArchiveMeta;
  try {
    meta = parseArchiveMeta(new TextDecoder().decode(metaBytes));
  } catch (e) {
    throw new ArchiveError(`${join(dir, ARCHIVE_FILES.meta)}: ${(e as Error).message}`);
  }
  return {
    meta,
    room: readFile(dir, ARCHIVE_FILES.room)!,
    keyLog: readFile(dir, ARCHIVE_FILES.keyLog, true),
    policies: framesOf(dir, ARCHIVE_FILES.policies),
    records: framesOf(dir, ARCHIVE_FILES.records),
  };
}

/** The frames of `decisions.bin`, streamed in chunks of 1 MiB. */
export async function* decisionFrames(
  dir: string,
  onBytes?: (read: number) => void,
): AsyncGenerator<Uint8Array> {
  const path = join(dir, ARCHIVE_FILES.decisions);
  if (!existsSync(path)) throw new ArchiveError(`${path}: cannot read (ENOENT)`);
  const reader = new FrameReader();
  let read = 0;
  try {
    for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) {
      const bytes = chunk as Buffer;
      read += bytes.length;
      onBytes?.(read);
      yield* reader.push(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    }
    reader.end();
  } catch (e) {
    if (e instanceof FrameError)
      throw new ArchiveError(`${path}: ${e.message} (at byte ${e.offset})`);
    if (e instanceof ArchiveError) throw e;
    throw new ArchiveError(`${path}: cannot read (${(e as NodeJS.ErrnoException).code ?? e})`);
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
export async function auditArchive(
  dir: string,
  options: AuditArchiveOptions,
): Promise<{ result: AuditResult; series: Series; meta: ArchiveMeta }> {
  const m = readArchiveMaterials(dir);
  const roomHex = Buffer.from(options.roomId).toString('hex');
  if (m.meta.room !== roomHex) {
    throw new ArchiveError(
      `${join(dir, ARCHIVE_FILES.meta)}: the archive is of the room ${m.meta.room}, not ${roomHex}`,
    );
  }
  const jobs = Math.max(1, Math.min(options.jobs ?? 1, Math.max(64, availableParallelism())));
  const audit = new Audit(m, {
    roomId: options.roomId,
    graceS: options.graceS ?? m.meta.grace_s,
    ...(options.loadTolerance === undefined ? {} : { loadTolerance: options.loadTolerance }),
    backend: nodeBackend,
    verify: jobs > 1 ? 'external' : 'local',
  });
  const total = statSync(join(dir, ARCHIVE_FILES.decisions), { throwIfNoEntry: false })?.size ?? 0;
  let bytes = 0;
  let lastProgress = 0;
  const progress = (): void => {
    const now = Date.now();
    if (options.onProgress !== undefined && now - lastProgress > 100) {
      lastProgress = now;
      options.onProgress(audit.decisions, bytes, total);
    }
  };
  const frames = decisionFrames(dir, (n) => {
    bytes = n;
  });
  if (jobs === 1) {
    for await (const f of frames) {
      audit.add(f);
      if ((audit.decisions & 1023) === 0) progress();
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
      for await (const f of frames) {
        batch.push(f);
        if (batch.length === BATCH) {
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
  return { ...audit.finish(), meta: m.meta };
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
