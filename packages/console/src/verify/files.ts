/**
 * Files dropped on the verifier, sorted by what they are: each record kind by its magic (`WSD1`
 * decision, `WMH1` per-hop record, `WSP1` policy, `WRD1` room, `WKL1` key log head), and a
 * steering manifest by being JSON. The inputs of §9.1 once a decision, a policy and a room are
 * among them.
 */
import type { VerifyInput } from '@wai-steering/verifier';

/** What a file is. */
export type FileKind =
  | 'decision'
  | 'record'
  | 'policy'
  | 'room'
  | 'keyLog'
  | 'manifest'
  | 'unknown';

const MAGIC: Readonly<Record<string, FileKind>> = {
  WSD1: 'decision',
  WMH1: 'record',
  WSP1: 'policy',
  WRD1: 'room',
  WKL1: 'keyLog',
};

/** The kind of a file from its bytes. */
export function kindOf(bytes: Uint8Array): FileKind {
  if (bytes.length >= 4) {
    const magic = String.fromCharCode(bytes[0]!, bytes[1]!, bytes[2]!, bytes[3]!);
    const kind = MAGIC[magic];
    if (kind !== undefined) return kind;
  }
  let i = 0;
  while (
    i < bytes.length &&
    (bytes[i] === 0x20 || bytes[i] === 0x0a || bytes[i] === 0x0d || bytes[i] === 0x09)
  )
    i++;
  return bytes[i] === 0x7b ? 'manifest' : 'unknown';
}

/** A file as held by the page. */
export interface HeldFile {
  readonly name: string;
  readonly kind: FileKind;
  readonly bytes: Uint8Array;
}

/**
 * The verifier's inputs from the files held, or what is missing (a decision, a policy and a room
 * are needed; the key log head when the room names an origin, which the verifier then says).
 * With two files of a kind that is one of a kind, the last one given counts.
 */
export function inputsOf(files: readonly HeldFile[]): VerifyInput | { missing: FileKind[] } {
  const last = (k: FileKind) => [...files].reverse().find((f) => f.kind === k)?.bytes;
  const decision = last('decision');
  const policy = last('policy');
  const room = last('room');
  const missing: FileKind[] = [];
  if (decision === undefined) missing.push('decision');
  if (policy === undefined) missing.push('policy');
  if (room === undefined) missing.push('room');
  if (decision === undefined || policy === undefined || room === undefined) return { missing };
  const manifest = last('manifest');
  return {
    decision,
    policy,
    room,
    keyLog: last('keyLog') ?? null,
    records: files.filter((f) => f.kind === 'record').map((f) => f.bytes),
    ...(manifest === undefined ? {} : { manifest }),
  };
}
