/**
 * The energy account of an archive on disk (`docs/audit.md`, *The energy account*):
 * every record the archive holds, the policies in force as its decisions show them
 * (`policyTimeline`), its decisions (the sessions placed) and its `grace_s`, over a span of whole
 * periods (by default the archive's own, `archiveSpan`). Streamed: one pass over `decisions.bin`
 * for the policies in force, one over `records.bin` for the records' extent, then both at once,
 * interleaved by instant, into an `EnergyAccumulator`; `records.bin` out of period order (an
 * archive another tool wrote) is sorted in memory instead, the span's records only.
 */
import { join } from 'node:path';
import {
  type AccountDecision,
  type EnergyAccount,
  type EnergyAccountJson,
  EnergyAccumulator,
  type EnergyRefusal,
  isEnergySpanError,
  type PeriodView,
  type PolicyInForce,
  policyTimeline,
  writeAccount,
} from '@wai-steering/energy';
import type { EvidenceRecord } from '@wai-steering/evidence';
import {
  digestOf,
  type HopRecord,
  type Policy,
  readDecision,
  readHopRecord,
  readPolicy,
  toHex,
} from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { ARCHIVE_FILES, ArchiveError } from '../archive.js';
import {
  archiveSpan,
  ENERGY_STATEMENT_FILE,
  type EnergyReport,
  openRoomStatement,
  statementAgainst,
} from '../energy.js';
import { openPinnedRoom } from '../verdict.js';
import { spanOfMeta } from './internal/archive-log.js';
import { readFile } from './internal/files.js';
import {
  type ArchiveMaterials,
  decisionBatches,
  MAX_META_BYTES,
  readArchiveMaterials,
} from './materials.js';

/** Options of {@link archiveAccount}. */
export interface ArchiveAccountOptions {
  /** The span's bounds, room clock µs; each the archive's span of whole periods' by default. */
  readonly from?: bigint;
  readonly to?: bigint;
  /** The grace of the load replay, whole seconds (default `archive.json`'s `grace_s`). */
  readonly graceS?: number;
  /** Told each period as it closes. */
  readonly onPeriod?: (period: PeriodView) => void;
  /** The archive's materials, when read already. */
  readonly materials?: ArchiveMaterials;
}

/** Why an archive has no account over a span. */
export type NoAccount =
  /** No decision names a policy the archive holds (the policies in force are not known). */
  | 'no_policy'
  /** No record of the policy's hops, or no whole period of them in the span. */
  | 'no_period'
  /** The span refused (`EnergySpanError`: `empty`, `not_aligned`, `policy_changes`). */
  | 'empty'
  | 'not_aligned'
  | 'policy_changes';

/** The account of an archive, or why there is none. */
export type ArchiveAccount =
  | {
      readonly ok: true;
      readonly account: EnergyAccount;
      /** Whether the bounds were the archive's span of whole periods (not given). */
      readonly defaulted: { readonly from: boolean; readonly to: boolean };
      /** Whether `records.bin` was streamed (in period order) rather than sorted in memory. */
      readonly streamed: boolean;
    }
  | {
      readonly ok: false;
      /** One line: why. */
      readonly why: string;
      readonly problem: NoAccount;
      /** The instant to split the span at, or the bound that is not aligned. */
      readonly instant?: bigint;
    };

/** `WSD1`: a frame that does not begin so is no decision (passed over without reading it). */
const WSD1 = [0x57, 0x53, 0x44, 0x31];

/** The decisions of `decisions.bin` that read, in file order, a batch at a time. */
async function* decisionsOf(dir: string): AsyncGenerator<AccountDecision[]> {
  for await (const frames of decisionBatches(dir)) {
    const out: AccountDecision[] = [];
    for (const f of frames) {
      // A refusal costs its stack trace: a frame that cannot be a decision is not read.
      if (
        f.length < 64 ||
        f[0] !== WSD1[0] ||
        f[1] !== WSD1[1] ||
        f[2] !== WSD1[2] ||
        f[3] !== WSD1[3]
      ) {
        continue;
      }
      const read = readDecision(f);
      if (read.ok) out.push(read.value);
    }
    yield out;
  }
}

/** The decisions in ascending `t`, one at a time, an {@link ArchiveError} where `t` goes back. */
class DecisionStream {
  private batch: AccountDecision[] = [];
  private at = 0;
  private lastT = -1n;
  private readonly source: AsyncGenerator<AccountDecision[]>;
  constructor(dir: string) {
    this.source = decisionsOf(dir);
  }
  /** The next decision, or `undefined` after the last. */
  async next(): Promise<AccountDecision | undefined> {
    while (this.at === this.batch.length) {
      const got = await this.source.next();
      if (got.done === true) return undefined;
      this.batch = got.value;
      this.at = 0;
    }
    const d = this.batch[this.at++]!;
    if (d.t < this.lastT) {
      throw new ArchiveError(
        `${ARCHIVE_FILES.decisions} is not in ascending t: a decision at ${d.t} after one at ${this.lastT}`,
      );
    }
    this.lastT = d.t;
    return d;
  }
}

/** The policies in force as the archive's decisions show them (`policyTimeline`). */
async function timelineOf(dir: string, m: ArchiveMaterials): Promise<PolicyInForce[]> {
  const changes: { t: bigint; policy: Uint8Array }[] = [];
  let last: string | undefined;
  for await (const batch of decisionsOf(dir)) {
    for (const d of batch) {
      const hex = toHex(d.policy);
      if (hex === last) continue;
      last = hex;
      changes.push({ t: d.t, policy: d.policy });
    }
  }
  const policies: Policy[] = [];
  for (const bytes of m.policies) {
    const read = readPolicy(bytes);
    if (read.ok) policies.push(read.value);
  }
  return policyTimeline(changes, policies);
}

/** The records of `records.bin` that read, in file order. */
function* recordsOf(m: ArchiveMaterials): Generator<HopRecord> {
  for (const bytes of m.records) {
    const read = readHopRecord(bytes);
    if (read.ok) yield read.value;
  }
}

/**
 * The records' extent: the least `start` of the records of `policy`'s hops (of its room), and the
 * least of each hop's greatest `end`, where every hop that reports has reported (a hop's later
 * records may still be on their way when the archive is written).
 */
function extentOf(
  m: ArchiveMaterials,
  policy: Policy,
): { first: bigint; last: bigint } | undefined {
  const ends = new Map<string, bigint>(
    policy.pathways.flatMap((p) => p.hops.map((h) => [toHex(h.key), -1n] as const)),
  );
  const room = toHex(policy.room);
  let first: bigint | undefined;
  for (const r of recordsOf(m)) {
    const hop = toHex(r.hop);
    const end = ends.get(hop);
    if (end === undefined || toHex(r.room) !== room) continue;
    if (first === undefined || r.start < first) first = r.start;
    if (r.end > end) ends.set(hop, r.end);
  }
  if (first === undefined) return undefined;
  let last: bigint | undefined;
  for (const end of ends.values()) if (end >= 0n && (last === undefined || end < last)) last = end;
  return { first, last: last! };
}

/**
 * The account of the archive in `dir` over `[from, to)` (each bound by default the archive's
 * span of whole periods, `archiveSpan`), or why there is none. An {@link ArchiveError} for an
 * archive that does not read.
 */
export async function archiveAccount(
  dir: string,
  options: ArchiveAccountOptions = {},
): Promise<ArchiveAccount> {
  const m = options.materials ?? readArchiveMaterials(dir);
  const graceS = options.graceS ?? m.meta.grace_s;
  const timeline = await timelineOf(dir, m);
  const final = timeline.at(-1)?.policy;
  if (final === undefined) {
    return {
      ok: false,
      problem: 'no_policy',
      why: 'no decision of the archive names a policy it holds: the policies in force are not known',
    };
  }
  let from = options.from;
  let to = options.to;
  if (from === undefined || to === undefined) {
    const extent = extentOf(m, final);
    if (extent === undefined) {
      return {
        ok: false,
        problem: 'no_period',
        why: "the archive holds no record of the policy's hops",
      };
    }
    const span = archiveSpan({
      span: spanOfMeta(m.meta),
      periodUs: final.period_us,
      lagUs: final.lag_us,
      ttlS: Math.max(...timeline.map((p) => p.policy.ttl_s)),
      graceS,
      ...extent,
    });
    if ('why' in span) return { ok: false, problem: 'no_period', why: span.why };
    from ??= span.from;
    to ??= span.to;
  }
  let acc: EnergyAccumulator;
  const make = (): EnergyAccumulator =>
    new EnergyAccumulator({
      policies: timeline,
      from: from!,
      to: to!,
      graceS,
      ...(options.onPeriod === undefined ? {} : { onPeriod: options.onPeriod }),
    });
  try {
    acc = make();
  } catch (e) {
    if (!isEnergySpanError(e)) throw e;
    return {
      ok: false,
      problem: e.problem,
      why: e.message,
      ...(e.instant === undefined ? {} : { instant: e.instant }),
    };
  }
  const defaulted = { from: options.from === undefined, to: options.to === undefined };
  if (await feed(acc, dir, recordsInOrder(m, from!, to!, final.period_us))) {
    return { ok: true, account: acc.finish(), defaulted, streamed: true };
  }
  // records.bin is not in period order: the span's records sorted in memory.
  const held: EvidenceRecord[] = [];
  for (const r of recordsOf(m)) {
    if (r.end > from! && r.start < to!) held.push({ record: r, digest: digestOf(r, nodeBackend) });
  }
  held.sort((a, b) =>
    a.record.start < b.record.start ? -1 : a.record.start > b.record.start ? 1 : 0,
  );
  acc = make();
  await feed(acc, dir, held);
  return { ok: true, account: acc.finish(), defaulted, streamed: false };
}

/**
 * The records of the span `[from, to)` in file order with their digests, each in a period no
 * earlier than the one before it; `null` (then the iteration ends) at the first that is not.
 */
function* recordsInOrder(
  m: ArchiveMaterials,
  from: bigint,
  to: bigint,
  P: bigint,
): Generator<EvidenceRecord | null> {
  let k = 0n;
  for (const r of recordsOf(m)) {
    if (r.end <= from || r.start >= to) continue;
    const at = r.start < from ? 0n : (r.start - from) / P;
    if (at < k) {
      yield null;
      return;
    }
    k = at;
    yield { record: r, digest: digestOf(r, nodeBackend) };
  }
}

/**
 * Feeds the records and the archive's decisions into `acc`, interleaved by instant (the decisions
 * before each record first); `false` when `records` gave `null` (out of period order).
 */
async function feed(
  acc: EnergyAccumulator,
  dir: string,
  records: Iterable<EvidenceRecord | null>,
): Promise<boolean> {
  const decisions = new DecisionStream(dir);
  let d = await decisions.next();
  for (const r of records) {
    if (r === null) return false;
    while (d !== undefined && d.t < r.record.start) {
      acc.addDecision(d);
      d = await decisions.next();
    }
    acc.addRecord(r);
  }
  for (; d !== undefined; d = await decisions.next()) acc.addDecision(d);
  return true;
}

/** A statement's refusal as the one line of an input error. */
function refusalLine(r: EnergyRefusal, origin: string | undefined): string {
  const under = origin === undefined ? 'under its key names' : `under the log's origin ${origin}`;
  switch (r.reason) {
    case 'bad_signature':
      return `a signature by a key of the room does not verify ${under} (bad_signature)`;
    case 'unverified':
      return `not signed by a key that may sign the room's decisions ${under} (unverified)`;
    default:
      return `not a statement of the energy account (${r.message})`;
  }
}

/**
 * The statement the archive carries (`energy-statement`), verified against the room's keys
 * under the log's origin (`archive.json`'s `log.origin`; the note's key names without one):
 * its account, or `undefined` when the archive has none. One that does not verify or read is an
 * {@link ArchiveError} (exit 2), as a checkpoint that does not is: nothing of it can be said.
 */
export function readEnergyStatement(
  dir: string,
  m: ArchiveMaterials,
  roomId: Uint8Array,
): EnergyAccountJson | undefined {
  const bytes = readFile(dir, ENERGY_STATEMENT_FILE, MAX_META_BYTES, true);
  if (bytes === null) return undefined;
  const ctx = openPinnedRoom(m.room, m.keyLog, roomId, nodeBackend);
  const origin = m.meta.log?.origin;
  const opened = openRoomStatement(bytes, ctx, origin, nodeBackend);
  if (!opened.ok) {
    throw new ArchiveError(
      `${join(dir, ENERGY_STATEMENT_FILE)}: ${refusalLine(opened.refusal, origin)}`,
    );
  }
  return opened.value.account;
}

/**
 * The audit's energy report: the account recomputed from the archive, over the statement's span
 * when the archive carries one (`stated`, from {@link readEnergyStatement}), else over the
 * archive's span of whole periods; and the statement held to it.
 */
export async function auditEnergy(
  dir: string,
  m: ArchiveMaterials,
  stated: EnergyAccountJson | undefined,
  graceS: number,
): Promise<EnergyReport> {
  const span = stated === undefined ? {} : { from: BigInt(stated.from), to: BigInt(stated.to) };
  const a = await archiveAccount(dir, { ...span, graceS, materials: m });
  // The account's members in canonical order (RFC 8785): the audit's JSON writes it as such.
  const energy = a.ok ? (JSON.parse(writeAccount(a.account)) as EnergyAccountJson) : null;
  return {
    energy,
    why: a.ok ? null : a.why,
    ...(stated === undefined ? {} : { statement: statementAgainst(energy, stated) }),
  };
}
