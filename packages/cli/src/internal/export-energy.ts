/**
 * What `archive export` carries for the energy account (`docs/audit.md`, *The
 * archive*): every record of the span's hops, not only those the decisions name (the account
 * reads them all), and `energy-statement`, the server's signed statement of the archive's
 * account over the archive's span of whole periods: signed here with the steering key over
 * `--config` (the account computed from the archive as the audit computes it), or as
 * `GET /energy/statement` serves it over `--url` (or over `--config` when the key cannot be read).
 */
import { openRoomStatement } from '@wai-steering/auditor';
import { type ArchiveWriter, archiveAccount } from '@wai-steering/auditor/node';
import {
  compareAccounts,
  type EnergyAccountJson,
  signStatement,
  writeAccount,
} from '@wai-steering/energy';
import type { NoteSigner } from '@wai-steering/tlog';
import { openRoom } from '@wai-steering/verifier';
import { readHopRecord, readPolicy, toHex } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { spanText } from './time.js';

/** The hops (their keys, hex) of the policies given (bytes): the span's hops. */
export function hopsOf(policies: Iterable<Uint8Array>): Set<string> {
  const hops = new Set<string>();
  for (const bytes of policies) {
    const read = readPolicy(bytes);
    if (!read.ok) continue;
    for (const p of read.value.pathways) for (const h of p.hops) hops.add(toHex(h.key));
  }
  return hops;
}

/** A record's hop (hex) and digest when it reads; `undefined` otherwise. */
export function recordFacts(
  bytes: Uint8Array,
): { hop: string; digest: string; start: bigint } | undefined {
  const read = readHopRecord(bytes);
  if (!read.ok) return undefined;
  return {
    hop: toHex(read.value.hop),
    digest: toHex(nodeBackend.sha256(read.value.body)),
    start: read.value.start,
  };
}

/** The statement an export carries, or why it carries none. */
export interface EnergyExported {
  /** `signed` here with the steering key, or `served` by the server; absent: none ({@link why}). */
  readonly statement?: 'signed' | 'served';
  /** The span of the statement (the archive's span of whole periods). */
  readonly span?: { readonly from: bigint; readonly to: bigint };
  readonly why?: string;
  /** Where the statement served differs from the account the archive gives (records late?). */
  readonly differs?: readonly string[];
}

/** How the statement is had: signed here, or fetched from the server (`null`: it serves none). */
export interface StatementSource {
  readonly signer?: NoteSigner;
  readonly fetch?: (from: bigint, to: bigint) => Promise<string | null>;
  /** The room's descriptor and key log, and the log's origin: a statement served is checked. */
  readonly room: Uint8Array;
  readonly keyLog: Uint8Array | null;
  readonly origin?: string;
}

/**
 * Computes the archive's account (written, but for its statement) over its span of whole
 * periods, then writes its statement: signed with `source.signer`, or the one `source.fetch`
 * gives, verified against the room's keys (one that does not verify is not carried: the audit
 * could say nothing of it) and compared with the archive's account.
 */
export async function writeStatement(
  writer: ArchiveWriter,
  source: StatementSource,
): Promise<EnergyExported> {
  const a = await archiveAccount(writer.dir);
  if (!a.ok) return { why: a.why };
  const account = a.account;
  const span = { from: account.from, to: account.to };
  if (source.signer !== undefined) {
    writer.writeEnergyStatement(signStatement(account, source.signer));
    return { statement: 'signed', span };
  }
  let text: string | null;
  try {
    text = await source.fetch!(span.from, span.to);
  } catch (e) {
    return { span, why: (e as Error).message };
  }
  if (text === null) return { span, why: 'the server serves no energy statement' };
  const room = openRoom(source.room, source.keyLog, { backend: nodeBackend });
  if (!room.ok) return { span, why: `the room does not verify (${room.refusal.reason})` };
  const opened = openRoomStatement(text, room.value, source.origin, nodeBackend);
  if (!opened.ok) {
    return {
      span,
      why: `the server's statement does not verify (${opened.refusal.message}), so it is not carried`,
    };
  }
  writer.writeEnergyStatement(text);
  const mine = JSON.parse(writeAccount(account)) as EnergyAccountJson;
  const c = compareAccounts(mine, opened.value.account);
  return { statement: 'served', span, ...(c === 'agrees' ? {} : { differs: c.differs }) };
}

/** The export line's words of the statement. */
export function statementWords(e: EnergyExported): string {
  const span = e.span === undefined ? '' : ` of ${spanText(e.span.from, e.span.to)}`;
  if (e.statement === undefined) return `; no energy statement${span} (${e.why})`;
  const how =
    e.statement === 'signed' ? 'signed here with the steering key' : 'as the server serves it';
  const differs =
    e.differs === undefined
      ? ''
      : ` (it differs from the archive's account at ${e.differs.join(', ')}: the audit will report it)`;
  return `, the energy statement${span} ${how}${differs}`;
}
