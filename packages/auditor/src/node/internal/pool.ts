/**
 * A pool of worker threads (`worker.ts`) verifying batches of decisions for `auditArchive`, each
 * worker reading the archive's materials itself; answers in the order asked.
 */
import { Worker } from 'node:worker_threads';
import { ArchiveError } from '../../archive.js';
import { type PackedRefusals, unpackVerdicts } from '../../internal/pack.js';
import type { Verdict } from '../../verdict.js';

/** Decisions sent to a worker at a time. */
export const BATCH = 256;
/** Or fewer, when their bytes reach this many (a decision may hold up to about 2 MB). */
export const BATCH_BYTES = 1 << 20;

/** The worker's entry, next to the bundle of this module in `dist/`. */
function workerUrl(): URL {
  const here = new URL(import.meta.url);
  // Run from the sources (tests, `src/node/internal/`), the built worker is in `dist/`.
  return here.pathname.endsWith('.ts')
    ? new URL('../../../dist/worker.js', here)
    : new URL('./worker.js', here);
}

/** A pool of workers verifying batches of decisions, answers in the order asked. */
export class VerifyPool {
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
