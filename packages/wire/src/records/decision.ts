import { type ByteReader, ByteWriter } from '../internal/bytes.js';
import { firstRepeat } from '../internal/chars.js';
import { readRecord, recordSigner, type Signed, signatureVerifier } from '../internal/record.js';
import type { Refusal, Result } from '../refusal.js';

/** §7.1 `protocol`. */
export const PROTOCOL = { hls: 1, dash: 2 } as const;

/** §7.1 `reason` (§6.4). */
export const DECISION_REASON = {
  buffer: 1,
  floor: 2,
  share: 3,
  hold: 4,
  rank: 5,
  none: 6,
} as const;

/** §6.4 reason names (C8's), as `DECISION_REASON` spells them. */
export type ReasonName = keyof typeof DECISION_REASON;

/** §6.4: the name of each reason code (1 to 6), `REASON_NAME[4] === 'hold'`. */
export const REASON_NAME: Readonly<Record<number, ReasonName>> =
  /* @__PURE__ */ namesOf(DECISION_REASON);

/** §5.3 status. */
export const STATUS = { figure: 0, unmetered: 1, mixed: 2, stale: 3, empty: 4 } as const;

/** §5.3 status names (C8's), as `STATUS` spells them. */
export type StatusName = keyof typeof STATUS;

/** §5.3: the name of each status code (0 to 4), `STATUS_NAME[0] === 'figure'`. */
export const STATUS_NAME: Readonly<Record<number, StatusName>> = /* @__PURE__ */ namesOf(STATUS);

/** The inverse of a table of codes by name: the names by code, frozen. */
function namesOf<N extends string>(codes: Readonly<Record<N, number>>): Record<number, N> {
  const out: Record<number, N> = {};
  for (const name of Object.keys(codes) as N[]) out[codes[name]] = name;
  return Object.freeze(out);
}

/** §7.1 `limits` bits (§6.1). */
export const LIMIT = { latency: 1, quality: 2, capacity: 4 } as const;

/** §7.1 `present` bits of the report. */
export const PRESENT = { pathway: 1, throughput: 2, buffer: 4 } as const;

/** §7.1 `report`: the client's report as the server read it; an absent value is 0. */
export interface DecisionReport {
  readonly present: number;
  readonly pathway: number;
  readonly throughput: bigint;
  readonly buffer: bigint;
}

/** §7.1: one pathway of a decision, in the policy's order. */
export interface DecisionPathway {
  readonly load: number;
  readonly limits: number;
  readonly status: number;
  readonly class: number;
  readonly joules: bigint;
  readonly delivery: bigint;
  /** The digests (32 bytes each) of the records named, in §5.2's order. */
  readonly evidence: readonly Uint8Array[];
}

/** §7.1: the steering decision `WSD1`, every field but `magic`, `version` and `sig`. */
export interface DecisionFields {
  readonly room: Uint8Array;
  readonly signer: Uint8Array;
  readonly policy: Uint8Array;
  readonly t: bigint;
  readonly session: Uint8Array;
  readonly draw: number;
  readonly protocol: number;
  readonly report: DecisionReport;
  readonly pathways: readonly DecisionPathway[];
  readonly ttl: number;
  readonly reason: number;
  readonly priority: readonly number[];
}

/** A decision as read: its fields, `sig` and the bytes before `sig`. */
export type Decision = Signed<DecisionFields>;

/**
 * The field names of a decision's pathways and evidence (`pathways[i].load`, …), made once each:
 * a refusal names its field, and building the names for every decision read would cost more
 * than reading it.
 */
const PATHWAY_FIELDS: Record<
  'at' | 'load' | 'limits' | 'status' | 'class' | 'joules' | 'delivery' | 'evidence',
  string
>[] = [];
const EVIDENCE_FIELDS: string[][] = [];

function pathwayFields(i: number): (typeof PATHWAY_FIELDS)[number] {
  let f = PATHWAY_FIELDS[i];
  if (f === undefined) {
    const at = `pathways[${i}]`;
    f = {
      at,
      load: `${at}.load`,
      limits: `${at}.limits`,
      status: `${at}.status`,
      class: `${at}.class`,
      joules: `${at}.joules`,
      delivery: `${at}.delivery`,
      evidence: `${at}.evidence`,
    };
    PATHWAY_FIELDS[i] = f;
  }
  return f;
}

function evidenceField(i: number, j: number): string {
  let row = EVIDENCE_FIELDS[i];
  if (row === undefined) {
    row = [];
    EVIDENCE_FIELDS[i] = row;
  }
  let name = row[j];
  if (name === undefined) {
    name = `pathways[${i}].evidence[${j}]`;
    row[j] = name;
  }
  return name;
}

/**
 * The decision this reader gave last: the only one taken as `previous` (its fields are its
 * bytes', which a decision made elsewhere need not be).
 */
let lastRead: Decision | undefined;

/**
 * Whether the bytes of `r` at its position hold, for `length` bytes, what `previous` holds at
 * the same offset.
 */
function sameAt(r: ByteReader, previous: Uint8Array, length: number): boolean {
  const at = r.pos;
  if (r.remaining < length || previous.length < at + length) return false;
  // Four bytes at a time, then the rest.
  const a = r.view;
  const p = new DataView(previous.buffer, previous.byteOffset, previous.byteLength);
  let i = 0;
  for (; i + 4 <= length; i += 4) if (a.getUint32(at + i) !== p.getUint32(at + i)) return false;
  const b = r.bytes;
  for (; i < length; i++) if (b[at + i] !== previous[at + i]) return false;
  return true;
}

/**
 * Whether every pathway of the decision read last was taken from a previous one (set by
 * `readFields`, read by `checkRules` right after it: a read is synchronous).
 */
let allReused = false;

/**
 * The fields; with `previous`, each pathway whose status, class, J, D and evidence hold the same
 * bytes at the same place as the previous decision's is taken from it (so is every pathway before
 * it), and {@link allReused} says whether all of them were.
 */
function readFields(r: ByteReader, previous?: Decision): DecisionFields {
  const room = r.take(32, 'room');
  const signer = r.take(32, 'signer');
  const policy = r.take(32, 'policy');
  const t = r.u64('t');
  const session = r.take(16, 'session');
  const draw = r.u32('draw');
  const protocol = r.u8('protocol');
  const present = r.u8('report.present');
  const pathway = r.u8('report.pathway');
  const throughput = r.u64('report.throughput');
  const buffer = r.u64('report.buffer');
  const count = r.u8('pathways');
  const pathways: DecisionPathway[] = [];
  // Reuse while every pathway so far matched (the offsets then agree), never while tracing.
  let same =
    previous !== undefined &&
    r.trace === undefined &&
    previous === lastRead &&
    previous.pathways.length === count;
  for (let i = 0; i < count; i++) {
    const f = pathwayFields(i);
    const load = r.u32(f.load);
    const limits = r.u8(f.limits);
    if (same) {
      const p = previous!.pathways[i]!;
      const length = 1 + 1 + 16 + 16 + 1 + 32 * p.evidence.length;
      if (sameAt(r, previous!.body, length)) {
        r.pos += length;
        pathways.push({
          load,
          limits,
          status: p.status,
          class: p.class,
          joules: p.joules,
          delivery: p.delivery,
          evidence: p.evidence,
        });
        continue;
      }
      same = false;
    }
    const status = r.u8(f.status);
    const cls = r.u8(f.class);
    const joules = r.u128(f.joules);
    const delivery = r.u128(f.delivery);
    const k = r.u8(f.evidence);
    const evidence: Uint8Array[] = [];
    for (let j = 0; j < k; j++) evidence.push(r.take(32, evidenceField(i, j)));
    pathways.push({ load, limits, status, class: cls, joules, delivery, evidence });
  }
  const ttl = r.u32('ttl');
  const reason = r.u8('reason');
  const m = r.u8('priority');
  const priority: number[] = [];
  for (let i = 0; i < m; i++) priority.push(r.u8(`priority[${i}]`));
  allReused = same;
  return {
    room,
    signer,
    policy,
    t,
    session,
    draw,
    protocol,
    report: { present, pathway, throughput, buffer },
    pathways,
    ttl,
    reason,
    priority,
  };
}

/**
 * §7.2: every rule of `decision_invalid`. A decision whose pathways were all taken from a
 * previous one ({@link allReused}) has their figures and evidence checked already: only its own
 * fields and each pathway's `limits` are.
 */
function checkRules(d: DecisionFields, r: ByteReader): void {
  const invalid = (field: string, detail: string): Refusal =>
    r.rule('decision_invalid', field, detail);
  if (d.protocol !== 1 && d.protocol !== 2) throw invalid('protocol', 'not 1 or 2');
  if (d.draw >= 1_000_000) throw invalid('draw', 'not below 1 000 000');
  if (d.ttl < 1) throw invalid('ttl', 'ttl is 0');
  if (d.reason < 1 || d.reason > 6) throw invalid('reason', 'not 1 to 6');
  const { present, pathway, throughput, buffer } = d.report;
  if (present > 7) throw invalid('report.present', 'a bit above bit 2 is set');
  if ((present & PRESENT.pathway) === 0 && pathway !== 0) {
    throw invalid('report.pathway', 'an absent value is not 0');
  }
  if ((present & PRESENT.throughput) === 0 && throughput !== 0n) {
    throw invalid('report.throughput', 'an absent value is not 0');
  }
  if ((present & PRESENT.buffer) === 0 && buffer !== 0n) {
    throw invalid('report.buffer', 'an absent value is not 0');
  }
  const m = d.pathways.length;
  if ((present & PRESENT.pathway) !== 0 && pathway >= m) {
    throw invalid('report.pathway', 'not a pathway of the decision');
  }
  if (allReused) {
    d.pathways.forEach((pw, i) => {
      if (pw.limits > 7) throw invalid(pathwayFields(i).limits, 'a bit above bit 2 is set');
    });
    checkPriority(d, invalid);
    return;
  }
  const digests: Uint8Array[] = [];
  d.pathways.forEach((pw, i) => {
    const f = pathwayFields(i);
    if (pw.limits > 7) throw invalid(f.limits, 'a bit above bit 2 is set');
    if (pw.status > 4) throw invalid(f.status, 'not 0 to 4');
    if (pw.status === STATUS.figure) {
      if (pw.class < 2 || pw.class > 5) throw invalid(f.class, 'a figure with no class');
      if (pw.joules === 0n) throw invalid(f.joules, 'a figure of 0 joules');
      if (pw.delivery === 0n) throw invalid(f.delivery, 'a figure of 0 delivery');
    } else {
      if (pw.class !== 0) throw invalid(f.class, 'no figure, but a class');
      if (pw.joules !== 0n) throw invalid(f.joules, 'no figure, but joules');
      if (pw.delivery !== 0n) throw invalid(f.delivery, 'no figure, but a delivery');
    }
    for (const digest of pw.evidence) digests.push(digest);
  });
  // No digest is named twice in the decision, across pathways too (C9).
  const repeat = firstRepeat(digests);
  if (repeat >= 0) {
    // The field of the repeat: its pathway and its place there.
    let i = 0;
    let j = repeat;
    while (j >= d.pathways[i]!.evidence.length) j -= d.pathways[i++]!.evidence.length;
    throw invalid(evidenceField(i, j), 'a digest named twice');
  }
  checkPriority(d, invalid);
}

/** §7.2: the priority is a permutation of the pathways. */
function checkPriority(
  d: DecisionFields,
  invalid: (field: string, detail: string) => Refusal,
): void {
  const m = d.pathways.length;
  if (d.priority.length !== m) throw invalid('priority', 'not one entry per pathway');
  const named = new Uint8Array(m);
  d.priority.forEach((index, i) => {
    if (index >= m || named[index] !== 0) {
      throw invalid(`priority[${i}]`, 'not a permutation of the pathways');
    }
    named[index] = 1;
  });
}

/** §7.2: reads a decision and checks its rules (not its policy, room or signature). */
/** Options of {@link readDecision}. */
export interface ReadDecisionOptions {
  /**
   * The decision this function read last (the one before, in a run of decisions over one
   * window's evidence): each pathway whose status, class, J, D and evidence are the same bytes
   * is taken from it rather than read and checked again. The outcome is the same as without it;
   * any other decision is not taken.
   */
  readonly previous?: Decision;
}

export function readDecision(
  bytes: Uint8Array,
  options: ReadDecisionOptions = {},
): Result<Decision> {
  const previous = options.previous;
  const read = readRecord(
    bytes,
    'WSD1',
    previous === undefined ? readFields : (r) => readFields(r, previous),
    checkRules,
  );
  allReused = false;
  if (read.ok) lastRead = read.value;
  return read;
}

/** §7.1: the bytes of a decision before `sig`. Writes exactly what it is given. */
export function encodeDecision(d: DecisionFields): Uint8Array {
  let size = 4 + 1 + 32 * 3 + 8 + 16 + 4 + 1 + 18 + 1 + 4 + 1 + 1 + d.priority.length;
  for (const pw of d.pathways) size += 4 + 1 + 1 + 1 + 32 + 1 + 32 * pw.evidence.length;
  const w = new ByteWriter(size);
  w.text('WSD1', 'magic').u8(1, 'version');
  w.raw(d.room, 'room', 32).raw(d.signer, 'signer', 32).raw(d.policy, 'policy', 32);
  w.u64(d.t, 't').raw(d.session, 'session', 16).u32(d.draw, 'draw').u8(d.protocol, 'protocol');
  w.u8(d.report.present, 'present').u8(d.report.pathway, 'pathway');
  w.u64(d.report.throughput, 'throughput').u64(d.report.buffer, 'buffer');
  w.u8(d.pathways.length, 'pathways');
  for (const pw of d.pathways) {
    w.u32(pw.load, 'load').u8(pw.limits, 'limits').u8(pw.status, 'status').u8(pw.class, 'class');
    w.u128(pw.joules, 'joules').u128(pw.delivery, 'delivery');
    w.u8(pw.evidence.length, 'evidence');
    for (const digest of pw.evidence) w.raw(digest, 'evidence digest', 32);
  }
  w.u32(d.ttl, 'ttl').u8(d.reason, 'reason');
  w.u8(d.priority.length, 'priority');
  for (const index of d.priority) w.u8(index, 'priority');
  return w.finish();
}

/**
 * §7.3: the signed decision's bytes, signed by `secretKey`, whose public key must be `signer`.
 * Its rules are checked first (the refusal is thrown) unless `check` is false.
 */
export const signDecision = recordSigner(
  'WSD1',
  encodeDecision,
  readDecision,
  (d: DecisionFields) => d.signer,
);

/** §7.3: strict verification of a decision's signature by its `signer`. */
export const verifyDecisionSignature = signatureVerifier('WSD1', (d: Decision) => d.signer);
