/**
 * The refusals, inconsistent loads and duplicated frames an audit does not hold, each kept in a temporary file as it
 * is found (its JSON, after a comma), for the `--json` result: memory does not grow with them.
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AuditSink,
  type DuplicatedDecision,
  findingJson,
  type InconsistentLoad,
  type RefusedResult,
} from '../../audit.js';
import { CHUNK } from './files.js';

type Kind = 'refused' | 'inconsistent' | 'duplicated';

interface SpillFile {
  fd: number;
  pending: string[];
  size: number;
}

/** An {@link AuditSink} to temporary files; the directory is made at the first finding. */
export class Spill implements AuditSink {
  private dir: string | undefined;
  private readonly files = new Map<Kind, SpillFile>();

  refused(r: RefusedResult): void {
    this.add('refused', `,${findingJson(r)}`);
  }

  inconsistent(l: InconsistentLoad): void {
    this.add('inconsistent', `,${findingJson(l)}`);
  }

  duplicated(d: DuplicatedDecision): void {
    this.add('duplicated', `,${findingJson(d)}`);
  }

  private add(kind: Kind, json: string): void {
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

  private flush(f: SpillFile): void {
    if (f.pending.length === 0) return;
    writeSync(f.fd, f.pending.join(''), null, 'latin1');
    f.pending = [];
    f.size = 0;
  }

  /** A kind's entries as written (ASCII JSON), a chunk at a time. */
  *chunks(kind: Kind): Generator<string> {
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

  /** Closes and removes the temporary files (idempotent). */
  dispose(): void {
    for (const f of this.files.values()) closeSync(f.fd);
    this.files.clear();
    if (this.dir !== undefined) rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
  }
}
