/**
 * `wai-steer archive export`: an archive (`@wai-steering/auditor`'s layout) of a steering server's
 * decisions over a span, from its store (offline, by its config) or over HTTP (the listing by
 * time, then each decision, the policies and the records it names, the room and the key log
 * head, all by digest).
 */
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { ArchiveMeta } from '@wai-steering/auditor';
import { ArchiveWriter } from '@wai-steering/auditor/node';
import { nowUs } from '@wai-steering/config-text';
import type { ServerConfig } from '@wai-steering/server';
import { ed25519Signer, encodeEntry } from '@wai-steering/tlog';
import { readDecision, readRoom, roomIdOf, toHex } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { UserError } from './errors.js';
import {
  type EnergyExported,
  hopsOf,
  type StatementSource,
  writeStatement,
} from './export-energy.js';
import { type LogExported, latin1, storeLogSource, writeArchiveLog } from './export-log.js';
import { fetchStatement } from './export-statement.js';
import { readKeyFile } from './keys.js';
import { instantOption } from './time.js';

/** The span exported: decisions with `from` ≤ `t` < `to`, room clock µs. */
export interface Span {
  readonly from: bigint;
  readonly to: bigint;
}

/** What an export wrote. */
export interface Exported {
  readonly room: string;
  readonly decisions: number;
  readonly policies: number;
  readonly records: number;
  /** Records named by a decision that the server did not give. */
  readonly missing: number;
  /** The decision log the archive carries, or why it carries none. */
  readonly log: LogExported;
  /** The energy statement the archive carries, or why it carries none. */
  readonly energy: EnergyExported;
  /** Over HTTP, a server that lists no records: only those the decisions name are carried. */
  readonly unlisted?: boolean;
}

export const U64_MAX = (1n << 64n) - 1n;

/**
 * A span from the options `--from` and `--to` (each an instant as every option reads it: µs,
 * RFC 3339, now, now-1h), both read at one `now`; `from` 0 and `to` 2^64 − 1 when absent.
 */
export function spanOf(
  from: string | undefined,
  to: string | undefined,
  now: () => bigint = nowUs,
): Span {
  const at = now();
  const span = {
    from: from === undefined ? 0n : instantOption(from, 'from', () => at),
    to: to === undefined ? U64_MAX : instantOption(to, 'to', () => at),
  };
  if (span.to <= span.from) throw new UserError('--to must be after --from');
  return span;
}

export function digestHex(bytes: Uint8Array): string {
  return toHex(nodeBackend.sha256(bytes.subarray(0, Math.max(0, bytes.length - 64))));
}

/**
 * Collects the digests each decision names (its policy and its records), and its entry in the
 * decision log (its `t` and digest), which the log's checkpoint must hold.
 */
export class Named {
  readonly policies = new Set<string>();
  readonly records = new Set<string>();
  readonly entries = new Set<string>();
  add(decision: Uint8Array): bigint | undefined {
    const read = readDecision(decision);
    if (!read.ok) return undefined;
    this.policies.add(toHex(read.value.policy));
    for (const pw of read.value.pathways) for (const e of pw.evidence) this.records.add(toHex(e));
    const digest = nodeBackend.sha256(read.value.body);
    this.entries.add(latin1(encodeEntry({ t: read.value.t, digest })));
    return read.value.t;
  }
}

export function metaOf(
  room: string,
  graceS: number,
  span: Span,
  server: string,
  n: number,
  log?: LogExported,
): ArchiveMeta {
  return {
    room,
    grace_s: graceS,
    span: { from: span.from.toString(), to: span.to.toString() },
    server,
    decisions: n,
    load_tolerance: 2,
    ...(log?.origin === undefined ? {} : { log: { origin: log.origin } }),
  };
}

export const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/**
 * The span an export takes: one that ends after now ends now (the log's checkpoint must cover
 * it, and decisions after now are not made yet); then, when its end is less than `maxDelayMs`
 * ago, the wait until it is (a decision of the span is committed, and so listed, by then; at
 * most `maxDelayMs`). Now is the later of this machine's clock and `roomNow`, the room clock as
 * the store last stated it (a server whose clock is ahead of this machine's).
 */
export async function settledSpan(span: Span, maxDelayMs: number, roomNow = 0n): Promise<Span> {
  const local = nowUs();
  const now = local > roomNow ? local : roomNow;
  const to = span.to <= now ? span.to : now + 1n;
  const waitMs = Number((to + BigInt(maxDelayMs) * 1000n - local) / 1000n);
  if (waitMs > 0) await sleep(Math.min(waitMs, maxDelayMs));
  return { from: span.from, to: to > span.from ? to : span.from + 1n };
}

export function roomHexOf(roomBytes: Uint8Array, where: string): string {
  const read = readRoom(roomBytes);
  if (!read.ok)
    throw new UserError(`${where}: the room descriptor does not read (${read.refusal.reason})`);
  return toHex(roomIdOf(read.value, nodeBackend));
}

/** Exports from the store a server's config names (offline). */
export async function exportFromStore(
  configPath: string,
  out: string,
  span: Span,
  options: { roomId?: Uint8Array; onProgress?: (n: number) => void } = {},
): Promise<Exported> {
  const { defaultLogOrigin, loadConfig, openConfiguredStore } = await import(
    '@wai-steering/server'
  );
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(configPath);
  } catch (e) {
    const issues = (e as { issues?: string[] }).issues;
    throw new UserError(`server config ${configPath}: ${issues?.[0] ?? (e as Error).message}`);
  }
  if (config.store.path === ':memory:') {
    throw new UserError(`server config ${configPath}: its store is ":memory:", nothing to export`);
  }
  const read = (path: string, what: string): Uint8Array => {
    try {
      return new Uint8Array(readFileSync(path));
    } catch (e) {
      throw new UserError(`${what} ${path}: cannot read (${(e as NodeJS.ErrnoException).code})`);
    }
  };
  const roomBytes = read(config.room, 'room');
  const room = roomHexOf(roomBytes, config.room);
  if (options.roomId !== undefined && room !== toHex(options.roomId)) {
    throw new UserError(`the config's room is ${room}, not --room-id ${toHex(options.roomId)}`);
  }
  const keyLog = config.keyLog === null ? null : read(config.keyLog, 'key log');
  const graceS = Math.ceil(config.sessions.grace / 1000);
  // The server's own store, SQLite (checked at open) or PostgreSQL; never created here.
  let store: Awaited<ReturnType<typeof openConfiguredStore>>;
  try {
    store = await openConfiguredStore({ ...config, store: { ...config.store, create: false } });
  } catch (e) {
    if (e instanceof Error && e.name === 'ConfigError') {
      throw new UserError(`server config ${configPath}: ${e.message}`);
    }
    throw e;
  }
  const where =
    config.store.url !== undefined ? 'the PostgreSQL store' : `store ${config.store.path}`;
  const maxDelayMs = config.log?.maxDelay ?? 2000;
  const pollMs = Math.max(10, Math.min(250, config.log?.interval ?? 1000));
  try {
    const latest = await fromStore(() => store.latestLogCheckpoint());
    const settled = await settledSpan(span, maxDelayMs, latest?.issued);
    return await intoPlace(out, async (dir) => {
      const writer = await ArchiveWriter.create(dir, {
        meta: metaOf(room, graceS, settled, where, 0),
        room: roomBytes,
        keyLog,
      });
      try {
        return await writeFromStore(writer, settled);
      } finally {
        await writer.close();
      }
    });
  } finally {
    await store.close();
  }

  async function writeFromStore(writer: ArchiveWriter, settled: Span): Promise<Exported> {
    const named = new Named();
    let after: Parameters<typeof store.listDecisions>[2] = null;
    for (;;) {
      const page = await fromStore(() =>
        store.listDecisions(settled.from, settled.to, after, 1000),
      );
      for (const d of page.decisions) {
        named.add(d.bytes);
        await writer.add(d.bytes, d.t);
      }
      options.onProgress?.(writer.decisions);
      if (page.next === null) break;
      after = page.next;
    }
    await writer.close();
    const policies = new Map<string, Uint8Array>();
    const current = read(config.policy, 'policy');
    policies.set(digestHex(current), current);
    for (const b of await fromStore(() => store.listBlobs('policy'))) {
      policies.set(toHex(b.digest), b.bytes);
    }
    writer.writePolicies(policies.values());
    // Every record of the span's hops (the energy account reads them all), in ascending start,
    // then those the decisions name outside the span.
    const hops = hopsOf(policies.values());
    let missing = 0;
    const records = async function* (): AsyncGenerator<Uint8Array> {
      for await (const r of store.recordsEndingAfter(settled.from)) {
        if (r.start >= settled.to) break;
        if (!hops.has(toHex(r.hop))) continue;
        named.records.delete(toHex(r.digest));
        yield r.bytes;
      }
      for (const hex of named.records) {
        const r = await store.getRecord(Buffer.from(hex, 'hex'));
        if (r === undefined) missing++;
        else yield r;
      }
    };
    const recordCount = await fromStore(() => writer.writeRecordsFrom(records()));
    const log = await fromStore(() =>
      writeArchiveLog(writer, storeLogSource(store), named.entries, {
        pollMs,
        deadline: Date.now() + 2 * maxDelayMs + 10_000,
      }),
    );
    writer.writeMeta(metaOf(room, graceS, settled, where, writer.decisions, log));
    const energy = await writeStatement(writer, {
      ...(await statementSigner(config, log, defaultLogOrigin)),
      room: roomBytes,
      keyLog,
      ...(log.origin === undefined ? {} : { origin: log.origin }),
    });
    return {
      room,
      decisions: writer.decisions,
      policies: policies.size,
      records: recordCount,
      missing,
      log,
      energy,
    };
  }
}

/**
 * How an export over `--config` has its statement: signed here with the config's steering key,
 * under the log's origin (the log exported, else the config's or its default); when the key
 * cannot be read here, fetched from the running server (its public URL, or where it listens).
 */
async function statementSigner(
  config: ServerConfig,
  log: LogExported,
  defaultOrigin: (c: ServerConfig) => string,
): Promise<Pick<StatementSource, 'signer' | 'fetch'>> {
  let key: Uint8Array | undefined;
  try {
    key = readKeyFile(config.signingKey, 'signing key').secretKey;
  } catch {
    key = undefined;
  }
  if (key !== undefined) {
    const origin = log.origin ?? config.log?.origin ?? defaultOrigin(config);
    return { signer: ed25519Signer(origin, key, nodeBackend) };
  }
  const host = config.listen.host.includes(':') ? `[${config.listen.host}]` : config.listen.host;
  const base =
    config.publicUrl ??
    (config.listen.port === 0 ? undefined : `http://${host}:${config.listen.port}`);
  if (base === undefined) return { fetch: async () => null };
  return { fetch: (from, to) => fetchStatement(new URL(base), from, to) };
}

/** A read of the store, its failure one line naming the store. */
async function fromStore<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (e) {
    if (e instanceof UserError) throw e;
    throw new UserError(`the store: ${(e as Error).message}`);
  }
}

/**
 * Runs `write` into a new directory beside `out`, then renames it into place: a failed export
 * leaves nothing behind (the directory is removed, and `out` is as it was). `out` may be absent,
 * an empty directory, or an archive (replaced); anything else is refused.
 */
export async function intoPlace<T>(out: string, write: (dir: string) => Promise<T>): Promise<T> {
  const target = resolve(out);
  let exists = false;
  try {
    const st = lstatSync(target);
    exists = true;
    if (!st.isDirectory()) throw new UserError(`--out ${out}: exists and is not a directory`);
    const names = readdirSync(target);
    if (names.length > 0 && !names.includes('archive.json')) {
      throw new UserError(
        `--out ${out}: a directory that holds no archive; give a new directory or an archive's`,
      );
    }
  } catch (e) {
    if (e instanceof UserError) throw e;
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new UserError(`--out ${out}: ${(e as NodeJS.ErrnoException).code ?? e}`);
    }
  }
  let made: string | undefined;
  let temp: string;
  try {
    made = mkdirSync(dirname(target), { recursive: true });
    temp = mkdtempSync(join(dirname(target), `.${basename(target)}.partial-`));
  } catch (e) {
    throw new UserError(
      `--out ${out}: cannot write beside it (${(e as NodeJS.ErrnoException).code ?? e})`,
    );
  }
  try {
    const done = await write(temp);
    if (exists) {
      const old = `${temp}.old`;
      renameSync(target, old);
      renameSync(temp, target);
      rmSync(old, { recursive: true, force: true });
    } else {
      renameSync(temp, target);
    }
    return done;
  } catch (e) {
    rmSync(temp, { recursive: true, force: true });
    if (made !== undefined) rmSync(made, { recursive: true, force: true });
    throw e;
  }
}
