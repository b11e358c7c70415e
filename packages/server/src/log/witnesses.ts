/**
 * The log's witnesses (C2SP tlog-witness, `add-checkpoint`): each new checkpoint is sent to each
 * configured witness with the consistency proof from the size the witness last cosigned (learnt
 * from its `409` answer, `text/x.tlog.size`), and the cosignatures it answers are verified
 * (tlog-cosignature, against its vkey) and added to the stored checkpoint. A witness that is
 * down, slow or refuses never delays the log: each is asked on its own, at most one request in
 * flight, the newest checkpoint only, under a timeout; its state is logged once when it changes.
 */
import {
  addCosignatures,
  formatAddCheckpoint,
  formatSignatureLine,
  parseCheckpoint,
  parseNote,
  type VerifierKey,
} from '@wai-steering/tlog';
import type { CryptoBackend } from '@wai-steering/wire';
import { describeError } from '../health.js';
import type { LogWrites, StoredCheckpoint } from '../store/store.js';
import type { LogReader } from './reader.js';

/** A configured witness: its submission prefix and its cosignature key (type 0x04). */
export interface WitnessConfig {
  readonly url: string;
  readonly key: VerifierKey;
}

export interface WitnessesOptions {
  readonly store: LogWrites;
  readonly reader: LogReader;
  readonly witnesses: readonly WitnessConfig[];
  /** How long a request may take, ms. */
  readonly timeoutMs: number;
  readonly backend?: CryptoBackend;
  /** Where a witness's change of state is said (stderr by default). */
  readonly log?: (line: string) => void;
}

/** One witness's state, as this instance knows it. */
export interface WitnessStatus {
  readonly name: string;
  readonly url: string;
  /** The size it last cosigned (or told us of in a 409), `undefined` before it answered. */
  readonly size: bigint | undefined;
  /** The last outcome: `cosigned`, or why not. */
  readonly last: string;
  /** Checkpoints it cosigned for this instance. */
  readonly cosigned: number;
  readonly failures: number;
}

interface Witness {
  readonly config: WitnessConfig;
  size: bigint | undefined;
  busy: boolean;
  /** The newest checkpoint that came while a request was in flight. */
  next: StoredCheckpoint | undefined;
  last: string;
  failing: boolean;
  cosigned: number;
  failures: number;
}

export class Witnesses {
  private readonly list: Witness[];
  private readonly log: (line: string) => void;
  /** The stored text of each checkpoint whose cosignatures are being added (one writer here). */
  private texts = new Map<bigint, string>();
  private chain: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly o: WitnessesOptions) {
    this.list = o.witnesses.map((config) => ({
      config,
      size: undefined,
      busy: false,
      next: undefined,
      last: 'not asked yet',
      failing: false,
      cosigned: 0,
      failures: 0,
    }));
    this.log = o.log ?? ((line) => process.stderr.write(`${line}\n`));
  }

  /** Each witness's state. */
  status(): WitnessStatus[] {
    return this.list.map((w) => ({
      name: w.config.key.name,
      url: w.config.url,
      size: w.size,
      last: w.last,
      cosigned: w.cosigned,
      failures: w.failures,
    }));
  }

  /** Sends a new checkpoint to every witness (returns at once). */
  submit(checkpoint: StoredCheckpoint): void {
    if (this.closed) return;
    for (const w of this.list) {
      if (w.busy) {
        w.next = checkpoint;
        continue;
      }
      this.start(w, checkpoint);
    }
  }

  private start(w: Witness, checkpoint: StoredCheckpoint): void {
    w.busy = true;
    const p = this.ask(w, checkpoint)
      .catch((e: unknown) => this.failed(w, describeError(e)))
      .finally(() => {
        w.busy = false;
        this.inFlight.delete(p);
        const next = w.next;
        w.next = undefined;
        if (next !== undefined && !this.closed && next.size > (w.size ?? -1n)) this.start(w, next);
      });
    this.inFlight.add(p);
  }

  /** Waits for the requests in flight; sends nothing more. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.inFlight]);
    await this.chain;
  }

  /** One add-checkpoint, and once more after a 409 that names a size it can prove from. */
  private async ask(w: Witness, checkpoint: StoredCheckpoint): Promise<void> {
    const note = parseNote(checkpoint.text);
    const read = note.ok ? parseCheckpoint(note.value.text) : undefined;
    if (read === undefined || !read.ok) throw new Error('the checkpoint does not read');
    const tree = { size: checkpoint.size, root: read.value.root };
    // The log's own signature only: the witness cosigns what the log signed.
    const logged = logSigned(checkpoint.text, this.o.witnesses);
    for (let attempt = 0; attempt < 2; attempt++) {
      const old = w.size ?? 0n;
      if (old > tree.size) {
        // Another instance (an earlier lease) sent it a later checkpoint already.
        this.ok(w, `at ${old}, past this checkpoint`);
        return;
      }
      const proof = old === 0n ? [] : await this.o.reader.consistency(old, tree);
      const body = formatAddCheckpoint({ oldSize: old, proof, checkpoint: logged });
      const res = await fetch(`${w.config.url.replace(/\/+$/, '')}/add-checkpoint`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain; charset=utf-8' },
        body,
        signal: AbortSignal.timeout(this.o.timeoutMs),
      });
      const text = await res.text();
      if (res.status === 200) {
        await this.cosigned(w, checkpoint, text);
        return;
      }
      if (
        res.status === 409 &&
        /^text\/x\.tlog\.size\b/.test(res.headers.get('content-type') ?? '')
      ) {
        const m = /^(0|[1-9][0-9]{0,19})\n$/.exec(text);
        if (m === null)
          throw new Error(
            `409 with a body that is not a size: ${JSON.stringify(text.slice(0, 40))}`,
          );
        w.size = BigInt(m[1]!);
        continue;
      }
      throw new Error(`${res.status}: ${text.split('\n')[0]!.slice(0, 200)}`);
    }
    throw new Error('409 twice: the witness moved on meanwhile');
  }

  /** A 200: its cosignature lines verified against the witness's key and added to the checkpoint. */
  private async cosigned(
    w: Witness,
    checkpoint: StoredCheckpoint,
    response: string,
  ): Promise<void> {
    // One writer of the checkpoint's text: the witnesses' answers are added one after the other.
    const done = this.chain.then(async () => {
      const base = this.texts.get(checkpoint.size) ?? checkpoint.text;
      const added = addCosignatures(base, response, [w.config.key], this.o.backend);
      if (!added.ok) throw new Error(`its cosignature does not verify (${added.refusal.message})`);
      if (added.value.cosignatures.length === 0) {
        throw new Error('its answer holds no cosignature by its key');
      }
      // Keep the texts of the latest checkpoints only.
      for (const size of this.texts.keys()) if (size < checkpoint.size) this.texts.delete(size);
      this.texts.set(checkpoint.size, added.value.checkpoint);
      await this.o.store.addLogCosignatures(checkpoint.size, added.value.checkpoint);
    });
    this.chain = done.catch(() => {});
    await done;
    w.size = checkpoint.size;
    w.cosigned++;
    this.ok(w, 'cosigned');
  }

  private ok(w: Witness, last: string): void {
    w.last = last;
    if (w.failing) {
      w.failing = false;
      this.log(`wai-steering: witness ${w.config.key.name} (${w.config.url}) answers again`);
    }
  }

  private failed(w: Witness, why: string): void {
    w.failures++;
    w.last = why;
    if (!w.failing) {
      w.failing = true;
      this.log(
        `wai-steering: witness ${w.config.key.name} (${w.config.url}) does not cosign: ${why} (the log goes on without it)`,
      );
    }
  }
}

/**
 * The checkpoint as the log signed it: the configured witnesses' cosignatures left out (a
 * witness is sent what the log signed, with the log's signatures only).
 */
function logSigned(text: string, witnesses: readonly WitnessConfig[]): string {
  const note = parseNote(text);
  if (!note.ok) return text;
  const theirs = new Set(witnesses.map((w) => `${w.key.keyId}+${w.key.name}`));
  const own = note.value.signatures.filter((s) => !theirs.has(`${s.keyId}+${s.name}`));
  if (own.length === note.value.signatures.length) return text;
  return `${note.value.text}\n${own.map(formatSignatureLine).join('')}`;
}
