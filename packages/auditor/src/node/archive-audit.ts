/**
 * The audit of an archive on disk, streamed: the decisions read from `decisions.bin` in chunks
 * (memory bounded by the sessions and the records, not the decisions) and verified on `jobs`
 * threads (the signatures are the hot part: `jobs − 1` workers and this thread, which also
 * replays the loads in order); the refusals and inconsistent loads past the first kept in
 * temporary files for the `--json` result.
 */
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { wasmTreeHashing } from '@wai-steering/tlog';
import { readDecision } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { ARCHIVE_FILES, ArchiveError, type ArchiveMeta } from '../archive.js';
import { Audit, type AuditResult, type AuditSink, auditJsonParts, findingJson } from '../audit.js';
import { withEnergy } from '../energy.js';
import { isUnread, unreadFrameMessage } from '../frames.js';
import type { Series } from '../series.js';
import { DecisionVerifier, type Verdict } from '../verdict.js';
import { auditEnergy, readEnergyStatement } from './energy.js';
import { logEntryChunks, readArchiveLog } from './internal/archive-log.js';
import { BATCH, BATCH_BYTES, VerifyPool } from './internal/pool.js';
import { Spill } from './internal/spill.js';
import { decisionBatches, readArchiveMaterials } from './materials.js';

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
  /** Duplicated decision frames, all of them. */
  readonly duplicated: number;
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
  const { result, series, meta, refused, inconsistent, duplicated } = done;
  return {
    result,
    series,
    meta,
    refused,
    inconsistent,
    duplicated,
    async writeJson(write) {
      const p = auditJsonParts(result);
      await write(p.head + result.refused.map(findingJson).join(','));
      for (const c of spill.chunks('refused')) await write(c);
      await write(p.middle + result.loads.inconsistent.map(findingJson).join(','));
      for (const c of spill.chunks('inconsistent')) await write(c);
      await write(p.late + result.duplicated.map(findingJson).join(','));
      for (const c of spill.chunks('duplicated')) await write(c);
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
  // The energy statement, verified before any decision (as the checkpoint is).
  const stated = readEnergyStatement(dir, m, options.roomId);
  // The entries' root with SHA-256 in WebAssembly, a batch a call; node:crypto where it is missing.
  const log =
    m.checkpoint === null
      ? undefined
      : readArchiveLog(dir, m, options.roomId, await wasmTreeHashing().catch(() => undefined));
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
  // The decisions in the file's order: a frame that does not read as a decision (C1) is an error
  // of the archive naming it, never a refusal among the findings.
  const decisionsPath = join(dir, ARCHIVE_FILES.decisions);
  let offset = 0;
  const add = (f: Uint8Array, verdict?: Verdict): void => {
    const frame = audit.decisions;
    const v = audit.add(f, verdict);
    if (!v.accepted && v.facts === undefined && isUnread(v.reason)) {
      const read = readDecision(f);
      const why = read.ok ? v.reason : read.refusal.message;
      throw new ArchiveError(
        unreadFrameMessage(decisionsPath, ARCHIVE_FILES.decisions, frame, offset, why),
      );
    }
    offset += 4 + f.length;
  };
  if (jobs === 1) {
    for await (const frames of batches) {
      for (const f of frames) add(f);
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
            add(f, v[i]);
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
      let batchBytes = 0;
      for await (const frames of batches) {
        for (const f of frames) {
          batch.push(f);
          batchBytes += f.length;
          // A batch of BATCH decisions, or fewer of BATCH_BYTES (decisions of many pathways).
          if (batch.length < BATCH && batchBytes < BATCH_BYTES) continue;
          if (atWorkers < ahead) send(batch);
          else {
            verifyHere(batch);
            // Let the workers' answers in before the next batch.
            await new Promise((r) => setImmediate(r));
          }
          batch = [];
          batchBytes = 0;
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
  const done = audit.finish();
  const energy = await auditEnergy(dir, m, stated, options.graceS ?? m.meta.grace_s);
  return { ...done, result: withEnergy(done.result, energy), meta: m.meta };
}
