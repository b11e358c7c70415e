/**
 * A record's file in the spool: its name, `<start>-<digest>.wmh` (the span's start in 20 digits,
 * so that names sort in the order of periods, and the record's digest, companion C1), and whether
 * the bytes of a file are this hop's record of the span its name says (C5.3 steps 1 to 4).
 */
import { bytesEqual, readHopRecord, toHex, verifyHopRecord } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';

/** A spooled record. */
export interface SpooledRecord {
  readonly name: string;
  readonly start: bigint;
  readonly end: bigint;
  readonly bytes: Uint8Array;
}

/** Whose records a spool holds: a record of another room or hop does not read. */
export interface RecordFileChecks {
  readonly room?: Uint8Array | undefined;
  readonly hop?: Uint8Array | undefined;
}

const NAME = /^(\d{20})-([0-9a-f]{64})\.wmh$/;

/** The record file name of a span's start and a record's digest (hex). */
export function recordFileName(start: bigint, digestHex: string): string {
  return `${String(start).padStart(20, '0')}-${digestHex}.wmh`;
}

/** The start and digest a record file name says, or `undefined` for a name of another form. */
export function parseRecordFileName(name: string): { start: bigint; digest: string } | undefined {
  const m = NAME.exec(name);
  return m === null ? undefined : { start: BigInt(m[1]!), digest: m[2]! };
}

/** C5.1: the `end` of a record's bytes (offset 77, u64 little-endian). */
export function endOfRecord(bytes: Uint8Array): bigint | undefined {
  if (bytes.length < 85) return undefined;
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getBigUint64(77, true);
}

/**
 * Why a spool file is not this hop's record of the span its name says (C5.3 steps 1 to 4, the
 * name's start and digest, the hop), or `undefined` when it is.
 */
export function recordFileProblem(
  name: string,
  bytes: Uint8Array,
  checks: RecordFileChecks = {},
): string | undefined {
  const m = NAME.exec(name);
  if (m === null) return 'its name is not <start>-<digest>.wmh';
  const read = readHopRecord(bytes);
  if (!read.ok) {
    const f = read.refusal.where.field;
    return `does not read as a per-hop record: ${read.refusal.reason}${f === undefined ? '' : ` at ${f}`}`;
  }
  const rec = read.value;
  if (String(rec.start).padStart(20, '0') !== m[1]) return 'its start is not the one its name says';
  // Companion C1: the digest is SHA-256 over the bytes before `sig`.
  if (toHex(nodeBackend.sha256(rec.body)) !== m[2]) {
    return 'its digest is not the one its name says';
  }
  if (checks.hop !== undefined && !bytesEqual(rec.hop, checks.hop)) {
    return `a record of another hop (${toHex(rec.hop)})`;
  }
  if (checks.room !== undefined) {
    const bad = verifyHopRecord(rec, checks.room, nodeBackend);
    if (bad !== undefined) return `does not verify: ${bad.reason}`;
  }
  return undefined;
}

/**
 * The spooled record a file's name and bytes are, or why they are not one
 * ({@link recordFileProblem}).
 */
export function readRecordFile(
  name: string,
  bytes: Uint8Array,
  checks: RecordFileChecks = {},
): SpooledRecord | string {
  const problem = recordFileProblem(name, bytes, checks);
  if (problem !== undefined) return problem;
  return { name, start: parseRecordFileName(name)!.start, end: endOfRecord(bytes)!, bytes };
}
