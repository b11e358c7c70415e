import type { CryptoBackend } from '../crypto/backend.js';
import { getBackend } from '../crypto/index.js';
import { bytesEqual } from '../hex.js';
import { type ByteReader, ByteWriter } from '../internal/bytes.js';
import { checkSignature, readRecord, recordSigner, type Signed } from '../internal/record.js';
import { Refusal, type Result } from '../refusal.js';

/** C5.2: the acquisition classes by tag, and the unmetered marker 0. */
export const CLASS = {
  unmetered: 0,
  ModelBased: 2,
  Estimator: 3,
  OnChipCounter: 4,
  CalibratedInstrument: 5,
} as const;

/** C5.2: the label of each class tag (the `energy/<label>` authority). */
export const CLASS_LABEL: Readonly<Record<number, string>> = {
  2: 'ModelBased',
  3: 'Estimator',
  4: 'OnChipCounter',
  5: 'CalibratedInstrument',
};

/** C5.1 track `kind` and `direction`. */
export const TRACK_KIND = { media: 1, other: 2 } as const;
export const TRACK_DIRECTION = { in: 1, out: 2 } as const;

/** C5.1: a track entry. */
export interface TrackEntry {
  readonly track: number;
  readonly kind: number;
  readonly direction: number;
  readonly bytes: bigint;
}

/** C5.1: the per-hop session record `WMH1`, every field but `magic`, `version` and `sig`. */
export interface HopRecordFields {
  readonly room: Uint8Array;
  readonly hop: Uint8Array;
  readonly start: bigint;
  readonly end: bigint;
  readonly sessions: number;
  readonly class: number;
  /** Microjoules (u128). */
  readonly joules: bigint;
  /** Eight u64: microseconds of delivery for each layer class 0 to 7. */
  readonly subscriber_us: readonly bigint[];
  readonly tracks: readonly TrackEntry[];
}

/** A per-hop record as read. */
export type HopRecord = Signed<HopRecordFields>;

function readFields(r: ByteReader): HopRecordFields {
  const room = r.take(32, 'room');
  const hop = r.take(32, 'hop');
  const start = r.u64('start');
  const end = r.u64('end');
  const sessions = r.u32('sessions');
  const cls = r.u8('class');
  const joules = r.u128('joules');
  const subscriber_us: bigint[] = [];
  for (let i = 0; i < 8; i++) subscriber_us.push(r.u64(`subscriber_us[${i}]`));
  const k = r.u8('tracks');
  const tracks: TrackEntry[] = [];
  for (let i = 0; i < k; i++) {
    const at = `tracks[${i}]`;
    const track = r.u32(`${at}.track`);
    const kind = r.u8(`${at}.kind`);
    const direction = r.u8(`${at}.direction`);
    const bytes = r.u64(`${at}.bytes`);
    tracks.push({ track, kind, direction, bytes });
  }
  return { room, hop, start, end, sessions, class: cls, joules, subscriber_us, tracks };
}

/** C5.3 steps 1 and 2: `energy_invalid`, then `record_invalid`. */
function checkRules(rec: HopRecordFields, r: ByteReader): void {
  const c = rec.class;
  if (c !== 0 && (c < 2 || c > 5)) throw r.rule('energy_invalid', 'class', 'not a class');
  if (c === 0 && rec.joules !== 0n) {
    throw r.rule('energy_invalid', 'joules', 'the unmetered marker with joules');
  }
  if (rec.end <= rec.start) throw r.rule('record_invalid', 'end', 'end is not after start');
  const seen = new Set<number>();
  rec.tracks.forEach((t, i) => {
    const at = `tracks[${i}]`;
    if (t.kind !== 1 && t.kind !== 2) throw r.rule('record_invalid', `${at}.kind`, 'not 1 or 2');
    if (t.direction !== 1 && t.direction !== 2) {
      throw r.rule('record_invalid', `${at}.direction`, 'not 1 or 2');
    }
    const key = t.track * 2 + (t.direction - 1);
    if (seen.has(key)) throw r.rule('record_invalid', `${at}.track`, 'a track and direction twice');
    seen.add(key);
  });
}

/** C5.3 steps 1 and 2: reads a per-hop record and checks its rules. */
export function readHopRecord(bytes: Uint8Array): Result<HopRecord> {
  return readRecord(bytes, 'WMH1', readFields, checkRules);
}

/** C5.1: the bytes of a per-hop record before `sig`. */
export function encodeHopRecord(rec: HopRecordFields): Uint8Array {
  if (rec.subscriber_us.length !== 8) throw new TypeError('subscriber_us: expected 8 values');
  const w = new ByteWriter(171 + 14 * rec.tracks.length);
  w.text('WMH1', 'magic').u8(1, 'version');
  w.raw(rec.room, 'room', 32).raw(rec.hop, 'hop', 32);
  w.u64(rec.start, 'start').u64(rec.end, 'end').u32(rec.sessions, 'sessions');
  w.u8(rec.class, 'class').u128(rec.joules, 'joules');
  for (const us of rec.subscriber_us) w.u64(us, 'subscriber_us');
  w.u8(rec.tracks.length, 'tracks');
  for (const t of rec.tracks) {
    w.u32(t.track, 'track').u8(t.kind, 'kind').u8(t.direction, 'direction').u64(t.bytes, 'bytes');
  }
  return w.finish();
}

/** C5: the signed record's bytes, signed by the hop's `secretKey`. */
export const signHopRecord = recordSigner(
  'WMH1',
  encodeHopRecord,
  readHopRecord,
  (rec: HopRecordFields) => rec.hop,
);

/**
 * C5.3 steps 3 and 4: `wrong_room` when the record is not of `roomId`, then the strict
 * signature by its `hop`.
 */
export function verifyHopRecord(
  rec: HopRecord,
  roomId: Uint8Array,
  backend?: CryptoBackend,
): Refusal | undefined {
  if (!bytesEqual(rec.room, roomId))
    return new Refusal('wrong_room', { magic: 'WMH1', field: 'room', offset: 5 });
  return checkSignature('WMH1', rec.body, rec.sig, rec.hop, backend ?? getBackend());
}

/**
 * C9: the bytes a given blob's digest is taken over when matching a named digest: those before
 * where `sig` would begin by C5.1's sizes (offset 171 + 14 × k, k the byte at offset 170),
 * whatever its magic or version say; `undefined` for a blob too short to reach that offset.
 */
export function hopRecordBodyOf(blob: Uint8Array): Uint8Array | undefined {
  if (blob.length < 171) return undefined;
  const end = 171 + 14 * blob[170]!;
  if (blob.length < end) return undefined;
  return blob.subarray(0, end);
}
