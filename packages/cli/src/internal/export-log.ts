/**
 * The decision log an archive carries (docs/audit.md, *The archive*): a checkpoint that covers
 * every decision of the archive, its text as served, and the entries `0 … size − 1` of it, 40
 * bytes each, from the store (`LogReads`: the latest checkpoint, then the entries a page at a
 * time) or from the server's `/log/` (the tiles and entry bundles read by `@wai-steering/tlog`'s
 * `TileHashReader`, each checked against the checkpoint's root).
 */
import type { ArchiveWriter } from '@wai-steering/auditor/node';
import {
  ENTRY_LENGTH,
  encodeEntry,
  parseCheckpoint,
  parseNote,
  TILE_WIDTH,
  TileHashReader,
} from '@wai-steering/tlog';
import { UserError } from './errors.js';

/** A checkpoint as a log source gives it. */
export interface SourceCheckpoint {
  readonly text: string;
  readonly origin: string;
  readonly size: bigint;
  readonly root: Uint8Array;
  /** When the integrator read what it holds (the store says; over HTTP it is not known). */
  readonly issued?: bigint;
}

/** Where the log is read from. */
export interface LogSource {
  /** The latest checkpoint; `undefined` before the first. */
  latest(): Promise<SourceCheckpoint | undefined>;
  /**
   * The entries `0 … size − 1` of `cp`, in chunks of whole entries; `undefined` (at any chunk)
   * when the log no longer holds them all (pruned with the decisions).
   */
  entries(cp: SourceCheckpoint): AsyncIterable<Uint8Array | undefined>;
}

/** Reads a checkpoint's text: its origin, size and root (the audit verifies its signature). */
export function readCheckpointText(text: string, where: string): SourceCheckpoint {
  const note = parseNote(text);
  const cp = note.ok ? parseCheckpoint(note.value.text) : note;
  if (!cp.ok) throw new UserError(`${where}: not a checkpoint (${cp.refusal.message})`);
  return { text, origin: cp.value.origin, size: cp.value.size, root: cp.value.root };
}

const PAGE = 256n * 256n;

/** The log of a store (`LogReads`). */
export function storeLogSource(store: {
  latestLogCheckpoint(): Promise<{ size: bigint; issued: bigint; text: string } | undefined>;
  logEntries(
    from: bigint,
    to: bigint,
  ): Promise<readonly { index: bigint; t: bigint; digest: Uint8Array }[]>;
}): LogSource {
  return {
    async latest() {
      const cp = await store.latestLogCheckpoint();
      if (cp === undefined) return undefined;
      return { ...readCheckpointText(cp.text, 'the store'), issued: cp.issued };
    },
    async *entries(cp) {
      for (let from = 0n; from < cp.size; from += PAGE) {
        const to = from + PAGE < cp.size ? from + PAGE : cp.size;
        const rows = await store.logEntries(from, to);
        if (rows.length !== Number(to - from) || rows[0]?.index !== from) {
          yield undefined;
          return;
        }
        const chunk = new Uint8Array(rows.length * ENTRY_LENGTH);
        rows.forEach((r, i) => {
          chunk.set(encodeEntry({ t: r.t, digest: r.digest }), i * ENTRY_LENGTH);
        });
        yield chunk;
      }
    },
  };
}

/** The log of a server, over HTTP: `GET /log/checkpoint`, `/log/tile/…`. */
export function httpLogSource(
  base: URL,
  getBytes: (url: URL, allow404: boolean) => Promise<Uint8Array | null>,
): LogSource {
  return {
    async latest() {
      const url = new URL('/log/checkpoint', base);
      const bytes = await getBytes(url, true);
      if (bytes === null) return undefined;
      return readCheckpointText(new TextDecoder().decode(bytes), `GET ${url}`);
    },
    async *entries(cp) {
      const reader = new TileHashReader({ size: cp.size, root: cp.root }, async (_tile, path) => {
        const b = await getBytes(new URL(`/log/${path}`, base), true);
        return b ?? undefined;
      });
      const bundles = (cp.size + BigInt(TILE_WIDTH) - 1n) / BigInt(TILE_WIDTH);
      const AHEAD = 16n;
      const ask = (i: bigint) =>
        reader.entries(i).then(
          (e) => e,
          (e: unknown) => e as Error,
        );
      const pending = new Map<bigint, Promise<Uint8Array[] | Error>>();
      for (let i = 0n; i < bundles; i++) {
        for (let j = i; j < i + AHEAD && j < bundles; j++)
          if (!pending.has(j)) pending.set(j, ask(j));
        const got = await pending.get(i)!;
        pending.delete(i);
        if (got instanceof Error) {
          if ((got as { reason?: string }).reason === 'tile_missing') {
            yield undefined;
            return;
          }
          throw new UserError(`the log of ${base.origin}: ${got.message}`);
        }
        const chunk = new Uint8Array(got.length * ENTRY_LENGTH);
        got.forEach((e, k) => {
          if (e.length !== ENTRY_LENGTH) {
            throw new UserError(
              `the log of ${base.origin}: entry ${i * 256n + BigInt(k)} is ${e.length} bytes, not ${ENTRY_LENGTH}`,
            );
          }
          chunk.set(e, k * ENTRY_LENGTH);
        });
        yield chunk;
      }
    },
  };
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** What {@link writeArchiveLog} did. */
export interface LogExported {
  /** The log's origin, or `undefined` when the archive carries no log. */
  readonly origin?: string;
  readonly size?: bigint;
  /** Why the archive carries no log, when it does not. */
  readonly why?: string;
  /** The archive's decisions the checkpoint does not hold (after waiting for one that does). */
  readonly uncovered: number;
}

/**
 * Writes `checkpoint` and `log-entries.bin` into the archive: the latest checkpoint, once its
 * entries hold every decision of the archive (`wanted`, their 40-byte entries); a newer one is
 * waited for, every `pollMs`, until `deadline` (ms since the epoch), after which the latest is
 * taken (the audit then says which decisions the log lacks). A server whose log holds them all
 * signs no newer checkpoint while no decision comes, so the one that covers them is taken at
 * once, whenever it was issued.
 */
export async function writeArchiveLog(
  writer: ArchiveWriter,
  source: LogSource,
  wanted: ReadonlySet<string>,
  o: { readonly pollMs: number; readonly deadline: number },
): Promise<LogExported> {
  for (;;) {
    const cp = await source.latest();
    const late = Date.now() >= o.deadline;
    if (cp === undefined) {
      if (late || wanted.size === 0)
        return { why: 'the server has no checkpoint yet', uncovered: wanted.size };
      await sleep(o.pollMs);
      continue;
    }
    const missing = new Set(wanted);
    let pruned = false;
    const entries = async function* () {
      for await (const chunk of source.entries(cp)) {
        if (chunk === undefined) {
          pruned = true;
          return;
        }
        for (let at = 0; at < chunk.length && missing.size > 0; at += ENTRY_LENGTH) {
          missing.delete(latin1(chunk.subarray(at, at + ENTRY_LENGTH)));
        }
        yield chunk;
      }
    };
    await writer.writeLog(cp.text, entries());
    if (pruned) {
      writer.removeLog();
      return {
        why: `the log no longer holds its first entries (pruned with the decisions): the checkpoint of ${cp.size} cannot be carried`,
        uncovered: wanted.size,
      };
    }
    if (missing.size === 0 || late) {
      return { origin: cp.origin, size: cp.size, uncovered: missing.size };
    }
    await sleep(o.pollMs);
  }
}

/** A 40-byte entry as a string key. */
export function latin1(bytes: Uint8Array): string {
  return String.fromCharCode.apply(null, bytes as unknown as number[]);
}
