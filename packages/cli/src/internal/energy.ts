/**
 * `wai-steer energy`'s reads: the account over HTTP (`GET /energy`, the room pinned as every
 * command over HTTP pins it) or from an archive (`archiveAccount` of `@wai-steering/auditor`,
 * the account recomputed as the audit recomputes it), and a statement's keys (the room's, from a
 * server or an archive, or vkeys given).
 */
import { type EnergyMembers, energyLines, openRoomStatement } from '@wai-steering/auditor';
import { archiveAccount, readArchiveMaterials } from '@wai-steering/auditor/node';
import {
  accountJson,
  type EnergyAccountJson,
  type EnergyResult,
  type OpenedStatement,
  openStatement,
  readAccount,
} from '@wai-steering/energy';
import { parseVerifierKey, type VerifierKey } from '@wai-steering/tlog';
import { openRoom, type RoomContext } from '@wai-steering/verifier';
import { bytesEqual, toHex } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { UserError } from './errors.js';
import { fetchRoom } from './log-client.js';
import { spanText } from './time.js';

/** A URL option, read. */
export function urlOption(text: string): URL {
  try {
    return new URL(text);
  } catch {
    throw new UserError(`--url ${text}: not a URL`);
  }
}

/** The line a server's refusal (`400`) states: its JSON's `message`, or its text's first line. */
function refusalText(body: string): string {
  try {
    const v = JSON.parse(body) as { message?: unknown; error?: unknown };
    if (typeof v.message === 'string') return v.message;
    if (typeof v.error === 'string') return v.error;
  } catch {
    // not JSON: its text
  }
  return body.split('\n')[0]!.trim();
}

/** The span's query: `?from=…&to=…` of the bounds given (µs). */
export function spanQuery(from: bigint | undefined, to: bigint | undefined): string {
  const q = [
    ...(from === undefined ? [] : [`from=${from}`]),
    ...(to === undefined ? [] : [`to=${to}`]),
  ];
  return q.length === 0 ? '' : `?${q.join('&')}`;
}

/** A GET of text: the body of a `200`, a {@link UserError} with the server's line otherwise. */
export async function getText(url: URL, fetcher: typeof fetch = fetch): Promise<string> {
  let res: Response;
  try {
    res = await fetcher(url, { signal: AbortSignal.timeout(300_000) });
  } catch (e) {
    const cause = (e as { cause?: { code?: string } }).cause?.code;
    throw new UserError(`GET ${url}: ${cause ?? (e as Error).message}`);
  }
  const body = await res.text().catch(() => '');
  if (res.status === 404 && /^\/energy/.test(url.pathname)) {
    throw new UserError(
      `GET ${url}: HTTP 404: the server serves no energy account (an older version?)`,
    );
  }
  if (!res.ok) {
    const why = refusalText(body);
    throw new UserError(`GET ${url}: HTTP ${res.status}${why === '' ? '' : `: ${why}`}`);
  }
  return body;
}

/** The room a server serves, pinned: one it does not serve is said so (exit 2). */
async function serverRoom(base: URL, roomId: Uint8Array): Promise<RoomContext> {
  try {
    return await fetchRoom(base, roomId);
  } catch (e) {
    if (e instanceof UserError && /: HTTP 404$/.test(e.message)) {
      throw new UserError(
        `${base.origin} does not serve the room ${toHex(roomId)} (--room-id): ${e.message}`,
      );
    }
    throw e;
  }
}

/** The account a server answers (`GET /energy`), its room pinned to `roomId`. */
export async function accountFromServer(
  base: URL,
  roomId: Uint8Array,
  from: bigint | undefined,
  to: bigint | undefined,
): Promise<EnergyAccountJson> {
  await serverRoom(base, roomId);
  const url = new URL(`/energy${spanQuery(from, to)}`, base);
  const read = readAccount(await getText(url));
  if (!read.ok) throw new UserError(`GET ${url}: not an energy account (${read.refusal.message})`);
  if (read.value.room !== toHex(roomId)) {
    throw new UserError(
      `GET ${url}: the account is of the room ${read.value.room}, not --room-id ${toHex(roomId)}`,
    );
  }
  return read.value;
}

/** The account of an archive; the span it took when a bound was not given, for the user. */
export async function accountFromArchive(
  dir: string,
  roomId: Uint8Array | undefined,
  from: bigint | undefined,
  to: bigint | undefined,
): Promise<{ account: EnergyAccountJson; defaultSpan?: string }> {
  const m = archiveMaterials(dir, roomId);
  let a: Awaited<ReturnType<typeof archiveAccount>>;
  try {
    a = await archiveAccount(dir, {
      materials: m,
      ...(from === undefined ? {} : { from }),
      ...(to === undefined ? {} : { to }),
    });
  } catch (e) {
    if (e instanceof Error && e.name === 'ArchiveError') throw new UserError(e.message);
    throw e;
  }
  if (!a.ok) throw new UserError(`the archive ${dir}: ${a.why}`);
  const account = accountJson(a.account);
  if (!a.defaulted.from && !a.defaulted.to) return { account };
  return {
    account,
    defaultSpan: `the archive's span of whole periods${a.defaulted.from && a.defaulted.to ? '' : ` (${a.defaulted.from ? 'from' : 'to'} defaulted)`}: ${spanText(a.account.from, a.account.to)}`,
  };
}

/** An archive's materials, its room pinned to `roomId` when given. */
function archiveMaterials(dir: string, roomId: Uint8Array | undefined) {
  let m: ReturnType<typeof readArchiveMaterials>;
  try {
    m = readArchiveMaterials(dir);
  } catch (e) {
    if (e instanceof Error && e.name === 'ArchiveError') throw new UserError(e.message);
    throw e;
  }
  if (roomId !== undefined && m.meta.room !== toHex(roomId)) {
    throw new UserError(
      `the archive ${dir} is of the room ${m.meta.room}, not --room-id ${toHex(roomId)}`,
    );
  }
  return m;
}

/** The room of an archive, opened and pinned; with the log's origin it names. */
function archiveRoom(dir: string, roomId: Uint8Array): { ctx: RoomContext; origin?: string } {
  const m = archiveMaterials(dir, roomId);
  const opened = openRoom(m.room, m.keyLog, { backend: nodeBackend });
  if (!opened.ok) {
    throw new UserError(
      `the archive ${dir}: its room does not verify (§9.1 step 1: ${opened.refusal.reason})`,
    );
  }
  if (!bytesEqual(opened.value.roomId, roomId)) {
    throw new UserError(
      `the archive ${dir}: its room descriptor is the room ${toHex(opened.value.roomId)}, not --room-id ${toHex(roomId)}`,
    );
  }
  return { ctx: opened.value, ...(m.meta.log === undefined ? {} : { origin: m.meta.log.origin }) };
}

/** Where a statement's keys come from. */
export type StatementKeys =
  | {
      readonly kind: 'room';
      readonly roomId: Uint8Array;
      readonly url?: URL;
      readonly archive?: string;
    }
  | { readonly kind: 'vkeys'; readonly vkeys: readonly string[] };

/** Verifies a statement with the keys `keys` says. */
export async function openStatementWith(
  note: Uint8Array,
  keys: StatementKeys,
): Promise<EnergyResult<OpenedStatement>> {
  if (keys.kind === 'vkeys') {
    const parsed: VerifierKey[] = keys.vkeys.map((v) => {
      const k = parseVerifierKey(v, nodeBackend);
      if (!k.ok) throw new UserError(`--vkey ${v}: ${k.refusal.message}`);
      return k.value;
    });
    return openStatement(note, parsed, nodeBackend);
  }
  if (keys.url !== undefined) {
    const ctx = await serverRoom(keys.url, keys.roomId);
    return openRoomStatement(note, ctx, undefined, nodeBackend);
  }
  const { ctx, origin } = archiveRoom(keys.archive!, keys.roomId);
  return openRoomStatement(note, ctx, origin, nodeBackend);
}

/** The audit summary's lines of the energy account (`wai-steer audit`). */
export function energySummary(r: EnergyMembers): string[] {
  if (r.energy === undefined) return [];
  if (r.energy === null) return [`energy: no account (${r.energy_why})`];
  const s = r.energy_statement;
  const statement =
    s === undefined
      ? 'the archive carries no statement'
      : s === 'agrees'
        ? "the server's statement agrees"
        : `the server's statement DIFFERS at ${s.differs.join(', ') || '(the whole account)'}`;
  return [...energyLines(r.energy), `  statement: ${statement}`];
}
