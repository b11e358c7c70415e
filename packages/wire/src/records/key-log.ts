import { compareBytes } from '../hex.js';
import { type ByteReader, ByteWriter } from '../internal/bytes.js';
import { compareText, isAuthority } from '../internal/chars.js';
import { readRecord, recordSigner, type Signed, signatureVerifier } from '../internal/record.js';
import type { Refusal, Result } from '../refusal.js';

/** C4 entry `status`. */
export const KEY_STATUS = { active: 1, revoked: 2 } as const;

/** C4: an entry of the key log. */
export interface KeyLogEntry {
  readonly key: Uint8Array;
  /** 1 active, 2 revoked. */
  readonly status: number;
  /** The authorities the key may sign for, in strictly ascending bytewise order. */
  readonly may_sign: readonly string[];
}

/** C4: the key log head `WKL1`, every field but `magic`, `version` and `sig`. */
export interface KeyLogFields {
  readonly origin: Uint8Array;
  readonly seq: bigint;
  /** The previous head's digest; 32 zero bytes when `seq` is 0. */
  readonly prev: Uint8Array;
  readonly entries: readonly KeyLogEntry[];
}

/** A key log head as read. */
export type KeyLog = Signed<KeyLogFields>;

function readFields(r: ByteReader): KeyLogFields {
  const origin = r.take(32, 'origin');
  const seq = r.u64('seq');
  const prev = r.take(32, 'prev');
  const count = r.u16('entries');
  const entries: KeyLogEntry[] = [];
  for (let i = 0; i < count; i++) {
    const at = `entries[${i}]`;
    const key = r.take(32, `${at}.key`);
    const status = r.u8(`${at}.status`);
    const k = r.u8(`${at}.may_sign`);
    const may_sign: string[] = [];
    for (let j = 0; j < k; j++) {
      may_sign.push(r.text(r.u8(`${at}.may_sign[${j}]`), `${at}.may_sign[${j}]`));
    }
    entries.push({ key, status, may_sign });
  }
  return { origin, seq, prev, entries };
}

function isZero(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) if (bytes[i] !== 0) return false;
  return true;
}

/** C4: every rule of `key_log_invalid`. */
function checkRules(log: KeyLogFields, r: ByteReader): void {
  const invalid = (field: string, detail: string): Refusal =>
    r.rule('key_log_invalid', field, detail);
  if ((log.seq === 0n) !== isZero(log.prev)) {
    throw invalid('prev', 'seq and prev disagree (one zero and not the other)');
  }
  log.entries.forEach((entry, i) => {
    const at = `entries[${i}]`;
    if (i > 0 && compareBytes(log.entries[i - 1]!.key, entry.key) >= 0) {
      throw invalid(`${at}.key`, 'keys not in strictly ascending order');
    }
    if (entry.status !== 1 && entry.status !== 2) throw invalid(`${at}.status`, 'not 1 or 2');
    entry.may_sign.forEach((authority, j) => {
      if (!isAuthority(authority)) throw invalid(`${at}.may_sign[${j}]`, 'not an authority');
      if (j > 0 && compareText(entry.may_sign[j - 1]!, authority) >= 0) {
        throw invalid(`${at}.may_sign[${j}]`, 'authorities not in strictly ascending order');
      }
    });
  });
}

/** C4: reads a key log head and checks its rules (not its signature). */
export function readKeyLog(bytes: Uint8Array): Result<KeyLog> {
  return readRecord(bytes, 'WKL1', readFields, checkRules);
}

/** C4: the bytes of a key log head before `sig`. */
export function encodeKeyLog(log: KeyLogFields): Uint8Array {
  const w = new ByteWriter(128 + 64 * log.entries.length);
  w.text('WKL1', 'magic').u8(1, 'version');
  w.raw(log.origin, 'origin', 32).u64(log.seq, 'seq').raw(log.prev, 'prev', 32);
  w.u16(log.entries.length, 'entries');
  for (const entry of log.entries) {
    w.raw(entry.key, 'key', 32).u8(entry.status, 'status');
    w.u8(entry.may_sign.length, 'may_sign');
    for (const authority of entry.may_sign) w.lengthText(authority, 1, 'may_sign');
  }
  return w.finish();
}

/** C4: the signed head's bytes, signed by the origin's `secretKey`. */
export const signKeyLog = recordSigner(
  'WKL1',
  encodeKeyLog,
  readKeyLog,
  (log: KeyLogFields) => log.origin,
);

/** C4, C2: strict verification of a head's signature by its own `origin` (C9). */
export const verifyKeyLogSignature = signatureVerifier('WKL1', (log: KeyLog) => log.origin);
