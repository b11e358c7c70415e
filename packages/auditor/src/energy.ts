/**
 * The energy account in the audit (`docs/audit.md`, *The energy account*): the
 * span an archive's account covers by default (its span of whole periods), the keys a statement
 * is checked against, and the audit's JSON members `energy`, `energy_why` and
 * `energy_statement`.
 */
import {
  canonicalJson,
  compareAccounts,
  type EnergyAccountJson,
  type EnergyResult,
  type JsonValue,
  type OpenedStatement,
  openStatement,
  type StatementComparison,
} from '@wai-steering/energy';
import { parseNote, type VerifierKey } from '@wai-steering/tlog';
import type { RoomContext } from '@wai-steering/verifier';
import type { CryptoBackend } from '@wai-steering/wire';
import { roomLogKeys } from './log.js';

/** The archive's file of the server's signed statement of its account (`archive export`). */
export const ENERGY_STATEMENT_FILE = 'energy-statement';

/** What the audit says of the energy account: its JSON members. */
export interface EnergyReport {
  /** The account recomputed from the archive, or `null` when it cannot be ({@link why}). */
  readonly energy: EnergyAccountJson | null;
  /** Why `energy` is `null`, one line; `null` when it is stated. */
  readonly why: string | null;
  /**
   * The statement the archive carries held to the account recomputed: `agrees`, or
   * `{ differs }` with the JSON pointers where it does not; absent without a statement.
   */
  readonly statement?: StatementComparison;
}

/** What the archive's span of whole periods is computed from. */
export interface ArchiveSpanFacts {
  /** `archive.json`'s span (`from` ≤ t < `to` of the decisions); all of time without one. */
  readonly span: { readonly from: bigint; readonly to: bigint };
  /** P, the lag L and the largest `ttl_s` of the policies (µs, µs, s). */
  readonly periodUs: bigint;
  readonly lagUs: bigint;
  readonly ttlS: number;
  /** The grace of the load replay, whole seconds. */
  readonly graceS: number;
  /**
   * The least `start` of the records of the policy's hops, and the least of each hop's greatest
   * `end` (the instant up to which every hop that reports has reported).
   */
  readonly first: bigint;
  readonly last: bigint;
}

/**
 * The archive's span of whole periods (`docs/audit.md`, *The energy account*): the whole periods
 * of P within `archive.json`'s span and the records' extent, less, when the span starts after 0,
 * the periods a session placed before it could still count at (TTL + grace), and less the lag L
 * at its end (records of those periods may still be arriving when the archive is written); the
 * records' extent ends where every hop that reports has reported:
 *
 *   from = P ⌈max(span.from + lead, first) / P⌉, lead = (ttl_s + grace_s) × 10^6 when span.from > 0
 *   to   = P ⌊min(span.to − L, last) / P⌋
 *
 * `{ why }` when no whole period is left.
 */
export function archiveSpan(
  f: ArchiveSpanFacts,
): { readonly from: bigint; readonly to: bigint } | { readonly why: string } {
  const P = f.periodUs;
  const lead = f.span.from > 0n ? (BigInt(f.ttlS) + BigInt(f.graceS)) * 1_000_000n : 0n;
  const low = f.span.from + lead > f.first ? f.span.from + lead : f.first;
  const end = f.span.to > f.lagUs ? f.span.to - f.lagUs : 0n;
  const high = end < f.last ? end : f.last;
  const from = ((low + P - 1n) / P) * P;
  const to = (high / P) * P;
  if (to <= from) {
    return {
      why: `the archive holds no whole period of ${P} µs of records within its span (records from ${f.first} to ${f.last} µs)`,
    };
  }
  return { from, to };
}

/**
 * The keys a statement may be signed by: the room's log keys (`roomLogKeys`: the authority and
 * the key log's `live/steer` keys not revoked) under `origin` (the log's, when known), or, without
 * one, under each key name the note's signature lines give.
 */
export function statementKeys(
  ctx: RoomContext,
  note: string | Uint8Array,
  origin: string | undefined,
  backend?: CryptoBackend,
): VerifierKey[] {
  if (origin !== undefined) return roomLogKeys(ctx, origin, backend);
  const read = parseNote(note);
  if (!read.ok) return [];
  const names = [...new Set(read.value.signatures.map((s) => s.name))];
  return names.flatMap((name) => roomLogKeys(ctx, name, backend));
}

/** Opens a statement against the room's keys (`openStatement` of `@wai-steering/energy`). */
export function openRoomStatement(
  note: string | Uint8Array,
  ctx: RoomContext,
  origin: string | undefined,
  backend?: CryptoBackend,
): EnergyResult<OpenedStatement> {
  return openStatement(note, statementKeys(ctx, note, origin, backend), backend);
}

/**
 * The statement held to the account recomputed over its span; a statement whose account could
 * not be recomputed (`energy` `null`) differs as a whole (the pointer `""`).
 */
export function statementAgainst(
  recomputed: EnergyAccountJson | null,
  stated: EnergyAccountJson,
): StatementComparison {
  return recomputed === null ? { differs: [''] } : compareAccounts(recomputed, stated);
}

/** The audit's members of the energy account, as its JSON writes them (`docs/audit.md`). */
export interface EnergyMembers {
  /** The account recomputed from the archive (its JSON), or `null` with {@link energy_why}. */
  readonly energy?: EnergyAccountJson | null;
  /** Why `energy` is `null`, one line; `null` when it is stated. */
  readonly energy_why?: string | null;
  /** With a statement in the archive: `agrees`, or `{ differs }`. */
  readonly energy_statement?: StatementComparison;
}

/**
 * The result with the energy report's members, a statement that differs counted among its
 * `findings` (one finding).
 */
export function withEnergy<T extends { readonly findings: number }>(
  result: T,
  r: EnergyReport,
): T & EnergyMembers {
  const differs = r.statement !== undefined && r.statement !== 'agrees';
  return {
    ...result,
    findings: result.findings + (differs ? 1 : 0),
    energy: r.energy,
    energy_why: r.why,
    ...(r.statement === undefined ? {} : { energy_statement: r.statement }),
  };
}

/**
 * The audit's JSON members of the energy account, each after a comma:
 * `,"energy":{…}|null,"energy_why":"…"|null` (the account written canonically) and, with a
 * statement, `,"energy_statement":…`. Empty for a result without them (an audit of decisions
 * alone).
 */
export function energyJsonMembers(r: EnergyMembers): string {
  if (r.energy === undefined) return '';
  const energy = r.energy === null ? 'null' : canonicalJson(r.energy as unknown as JsonValue);
  const statement =
    r.energy_statement === undefined
      ? ''
      : `,"energy_statement":${JSON.stringify(r.energy_statement)}`;
  return `,"energy":${energy},"energy_why":${JSON.stringify(r.energy_why ?? null)}${statement}`;
}
