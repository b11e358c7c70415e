/**
 * `wai-steer archive export --url`: an archive of a steering server's decisions over a span,
 * over HTTP (the listing by time, then each decision, the policies and the records it names, the
 * room and the key log head, all by digest), written into place only when complete.
 */
import { ArchiveWriter } from '@wai-steering/auditor/node';
import { readStrictJson } from '@wai-steering/config-text';
import { bytesEqual, hopRecordBodyOf, toHex } from '@wai-steering/wire';
import { UserError } from './errors.js';
import {
  digestHex,
  type Exported,
  intoPlace,
  metaOf,
  Named,
  roomHexOf,
  type Span,
  settledSpan,
} from './export.js';
import { hopsOf, recordFacts, writeStatement } from './export-energy.js';
import { httpLogSource, writeArchiveLog } from './export-log.js';
import { fetchStatement } from './export-statement.js';

/** Options of {@link exportFromUrl}. */
export interface UrlExportOptions {
  readonly roomId: Uint8Array;
  /** The server's grace, when given (otherwise the listing's `grace_s`, or 10 s). */
  readonly graceS?: number;
  readonly fetch?: typeof fetch;
  readonly concurrency?: number;
  readonly onProgress?: (n: number) => void;
  /**
   * The server's `log.max_delay`, ms (default 2000, the server's default): how long after the
   * span's end its decisions are committed and logged.
   */
  readonly maxDelayMs?: number;
}

async function getBytes(
  url: URL,
  o: UrlExportOptions,
  allow404 = false,
): Promise<Uint8Array | null> {
  let res: Response;
  try {
    res = await (o.fetch ?? fetch)(url, { signal: AbortSignal.timeout(30_000) });
  } catch (e) {
    throw new UserError(`GET ${url}: ${(e as Error).message}`);
  }
  if (allow404 && res.status === 404) {
    await res.arrayBuffer().catch(() => undefined);
    return null;
  }
  if (!res.ok) throw new UserError(`GET ${url}: HTTP ${res.status}`);
  try {
    return new Uint8Array(await res.arrayBuffer());
  } catch (e) {
    throw new UserError(`GET ${url}: ${(e as Error).message}`);
  }
}

/** Runs `f` over `items`, `n` at a time; the answers in the items' order. */
async function pool<T, R>(items: readonly T[], n: number, f: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const run = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await f(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, run));
  return out;
}

/**
 * A page of `GET /records` (base64 records, the next cursor); `null` when the server lists no
 * records (an older server: `404`, or `405` as `/records` took POST alone).
 */
async function listedRecords(
  url: URL,
  o: UrlExportOptions,
): Promise<{ records: Uint8Array[]; next: string | null } | null> {
  let res: Response;
  try {
    res = await (o.fetch ?? fetch)(url, { signal: AbortSignal.timeout(60_000) });
  } catch (e) {
    throw new UserError(`GET ${url}: ${(e as Error).message}`);
  }
  const text = await res.text().catch(() => '');
  if (res.status === 404 || res.status === 405) return null;
  if (!res.ok) throw new UserError(`GET ${url}: HTTP ${res.status}`);
  let page: { records?: unknown; next?: unknown };
  try {
    page = JSON.parse(text) as typeof page;
  } catch {
    throw new UserError(`GET ${url}: not the records' listing`);
  }
  if (
    !Array.isArray(page.records) ||
    !page.records.every((r) => typeof r === 'string') ||
    (page.next !== null && typeof page.next !== 'string')
  ) {
    throw new UserError(`GET ${url}: not the records' listing`);
  }
  return {
    records: (page.records as string[]).map((r) => new Uint8Array(Buffer.from(r, 'base64'))),
    next: page.next as string | null,
  };
}

interface ListingPage {
  decisions: { digest: string; t: string }[];
  next: string | null;
  decision_uri?: string;
  grace_s?: number;
}

/** Exports from a running server over HTTP, pinned to the room `roomId`. */
export async function exportFromUrl(
  server: string,
  out: string,
  span: Span,
  o: UrlExportOptions,
): Promise<Exported> {
  let base: URL;
  try {
    base = new URL(server);
  } catch {
    throw new UserError(`--url ${server}: not a URL`);
  }
  const roomHex = toHex(o.roomId);
  const roomBytes = (await getBytes(new URL(`/rooms/${roomHex}/descriptor`, base), o))!;
  const room = roomHexOf(roomBytes, `the room descriptor of ${base.origin}`);
  if (!bytesEqual(Buffer.from(room, 'hex'), o.roomId)) {
    throw new UserError(`${base.origin} serves the room ${room}, not --room-id ${roomHex}`);
  }
  const keyLog = await getBytes(new URL(`/rooms/${roomHex}/key-log`, base), o, true);
  const n = o.concurrency ?? 8;
  const maxDelayMs = o.maxDelayMs ?? 2000;
  const settled = await settledSpan(span, maxDelayMs);
  return intoPlace(out, async (dir) => {
    let graceS = o.graceS;
    let writer: ArchiveWriter | undefined;
    const named = new Named();
    let after: string | null = null;
    try {
      for (;;) {
        const q = `?from=${settled.from}&to=${settled.to}${after === null ? '' : `&after=${encodeURIComponent(after)}`}&limit=1000`;
        const listUrl = new URL(`/decisions${q}`, base);
        const text = new TextDecoder().decode((await getBytes(listUrl, o))!);
        const read = readStrictJson(text);
        if (!read.ok)
          throw new UserError(`GET ${listUrl}: not the listing's JSON (${read.problem})`);
        const page = read.value as ListingPage;
        if (page === null || typeof page !== 'object' || !Array.isArray(page.decisions))
          throw new UserError(`GET ${listUrl}: not the listing's JSON`);
        graceS ??= typeof page.grace_s === 'number' ? page.grace_s : 10;
        writer ??= await ArchiveWriter.create(dir, {
          meta: metaOf(room, graceS, settled, base.origin, 0),
          room: roomBytes,
          keyLog,
        });
        const prefix = new URL(page.decision_uri ?? '/decisions/', base).pathname;
        const bytes = await pool(page.decisions, n, async (d) => {
          const b = (await getBytes(new URL(`${prefix}${d.digest}`, base), o))!;
          if (digestHex(b) !== d.digest.toLowerCase()) {
            throw new UserError(`${prefix}${d.digest}: the bytes served are not that decision`);
          }
          return b;
        });
        for (const b of bytes) await writer.add(b, named.add(b));
        o.onProgress?.(writer.decisions);
        if (page.next === null || page.decisions.length === 0) break;
        after = page.next;
      }
      await writer!.close();
      const policies = (
        await pool([...named.policies], n, (hex) =>
          getBytes(new URL(`/policies/${hex}`, base), o, true),
        )
      ).filter((p): p is Uint8Array => p !== null);
      writer!.writePolicies(policies);
      // Every record of the span's hops (`GET /records`: the energy account reads them all), in
      // ascending start; then those the decisions name outside the span, by digest.
      const hops = hopsOf(policies);
      let unlisted = false;
      let missing = 0;
      const records = async function* (): AsyncGenerator<Uint8Array> {
        for (let after = '0'; ; ) {
          const url = new URL(
            `/records?from=${settled.from}&to=${settled.to}&after=${after}&limit=10000`,
            base,
          );
          const page = await listedRecords(url, o);
          if (page === null) {
            unlisted = true;
            break;
          }
          for (const bytes of page.records) {
            const f = recordFacts(bytes);
            if (f === undefined) throw new UserError(`GET ${url}: a record that does not read`);
            if (!hops.has(f.hop)) continue;
            named.records.delete(f.digest);
            yield bytes;
          }
          if (page.next === null) break;
          after = page.next;
        }
        const fetched = await pool([...named.records], n, (hex) =>
          getBytes(new URL(`/records/${hex}`, base), o, true),
        );
        for (const r of fetched) {
          if (r === null || hopRecordBodyOf(r) === undefined) missing++;
          else yield r;
        }
      };
      const recordCount = await writer!.writeRecordsFrom(records());
      const log = await writeArchiveLog(
        writer!,
        httpLogSource(base, (url, allow404) => getBytes(url, o, allow404)),
        named.entries,
        { pollMs: 250, deadline: Date.now() + 2 * maxDelayMs + 10_000 },
      );
      writer!.writeMeta(metaOf(room, graceS!, settled, base.origin, writer!.decisions, log));
      const energy = await writeStatement(writer!, {
        fetch: (from, to) => fetchStatement(base, from, to, o.fetch),
        room: roomBytes,
        keyLog,
        ...(log.origin === undefined ? {} : { origin: log.origin }),
      });
      return {
        room,
        decisions: writer!.decisions,
        policies: policies.length,
        records: recordCount,
        missing,
        log,
        energy,
        ...(unlisted ? { unlisted } : {}),
      };
    } finally {
      await writer?.close();
    }
  });
}
