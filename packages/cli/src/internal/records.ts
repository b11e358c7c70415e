import { resolve } from 'node:path';
import {
  type Decision,
  digestOf,
  type HopRecord,
  type KeyLog,
  type Policy,
  parseHex,
  type Refusal,
  type Result,
  type Room,
  readDecision,
  readHopRecord,
  readKeyLog,
  readPolicy,
  readRoom,
  verifyRoomSignature,
} from '@wai-steering/wire';
import { UserError } from './errors.js';
import { readBytes } from './files.js';

/** A refusal of a reader in one phrase: `truncated at tiers[2] (offset 61)`. */
export function describeRefusal(refusal: Refusal): string {
  const { where } = refusal;
  let text: string = refusal.reason;
  if (where.field !== undefined) text += ` at ${where.field}`;
  if (where.offset !== undefined) text += ` (offset ${where.offset})`;
  const detail = detailOf(refusal);
  if (detail !== undefined) text += `: ${detail}`;
  return text;
}

/** The detail a reader gave with its refusal (after the `: ` of its message), if any. */
export function detailOf(refusal: Refusal): string | undefined {
  const i = refusal.message.indexOf(': ');
  return i === -1 ? undefined : refusal.message.slice(i + 2);
}

const NAMES = {
  WSP1: 'a steering policy (WSP1)',
  WSD1: 'a steering decision (WSD1)',
  WRD1: 'a room descriptor (WRD1)',
  WKL1: 'a key log head (WKL1)',
  WMH1: 'a per-hop record (WMH1)',
} as const;

/** What the file most likely is, when it is text where a binary record belongs, and the fix. */
function hintFor(magic: keyof typeof NAMES, bytes: Uint8Array): string {
  const head = new TextDecoder().decode(bytes.subarray(0, 256));
  if (/^[\x20-\x7e\t\r\n]*$/.test(head) && /^\s*(#|[A-Za-z_]+\s*:|\{)/.test(head)) {
    if (magic === 'WSP1') {
      return ' (it is text, a policy config: compile it with `wai-steer policy compile CONFIG --key KEY --out policy.wsp` and give the .wsp)';
    }
    if (magic === 'WMH1') {
      return " (it is text, a record's fields: sign it with `wai-steer record sign JSON --key KEY --out FILE` and give the signed file)";
    }
    return ' (it is text: give the file a wai-steer command wrote)';
  }
  return '';
}

function readFile<T>(
  path: string,
  what: string,
  magic: keyof typeof NAMES,
  read: (b: Uint8Array) => Result<T>,
): { bytes: Uint8Array; value: T } {
  const bytes = readBytes(path, what);
  const result = read(bytes);
  if (!result.ok) {
    throw new UserError(
      `${what} ${path} is not ${NAMES[magic]}: ${describeRefusal(result.refusal)}${hintFor(magic, bytes)}`,
    );
  }
  return { bytes, value: result.value };
}

export function readPolicyFile(
  path: string,
  what = 'policy',
): { bytes: Uint8Array; value: Policy } {
  return readFile(path, what, 'WSP1', readPolicy);
}

export function readRoomFile(path: string, what = 'room'): { bytes: Uint8Array; value: Room } {
  return readFile(path, what, 'WRD1', readRoom);
}

export function readKeyLogFile(
  path: string,
  what = 'key log',
): { bytes: Uint8Array; value: KeyLog } {
  return readFile(path, what, 'WKL1', readKeyLog);
}

export function readDecisionFile(
  path: string,
  what = 'decision',
): { bytes: Uint8Array; value: Decision } {
  return readFile(path, what, 'WSD1', readDecision);
}

export function readHopRecordFile(
  path: string,
  what = 'record',
): { bytes: Uint8Array; value: HopRecord } {
  return readFile(path, what, 'WMH1', readHopRecord);
}

/**
 * A room id given as 64 hex digits, or as the path of a room file (resolved from `baseDir`),
 * whose signature must verify; `field` names it in messages.
 */
export function roomIdFrom(value: string, baseDir: string, field: string): Uint8Array {
  if (/^[0-9a-fA-F]{64}$/.test(value)) return parseHex(value)!;
  const path = resolve(baseDir, value);
  let bytes: Uint8Array;
  try {
    bytes = readBytes(path, 'room file');
  } catch (e) {
    const relative = value.startsWith('/')
      ? ''
      : " (a relative path is resolved from the file's own directory)";
    throw new UserError(`${field}: ${(e as Error).message}${relative}`);
  }
  const read = readRoom(bytes);
  if (!read.ok) {
    throw new UserError(
      `${field}: ${path} is not a room descriptor: ${describeRefusal(read.refusal)}`,
    );
  }
  const bad = verifyRoomSignature(read.value);
  if (bad !== undefined)
    throw new UserError(`${field}: room file ${path}: ${describeRefusal(bad)}`);
  return digestOf(read.value);
}
