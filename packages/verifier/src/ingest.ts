import {
  type CryptoBackend,
  digestOf,
  getBackend,
  type HopRecord,
  type Result,
  readHopRecord,
  verifyHopRecord,
} from '@wai-steering/wire';
import { checkHopAuthorised, type RoomContext } from './room.js';

/** A per-hop record that passed companion C5: read, of the room, signed, and its hop authorised. */
export interface OpenedHopRecord {
  readonly record: HopRecord;
  readonly digest: Uint8Array;
}

/**
 * Companion C5 as a steering server applies it on ingest: the record reads (C1, C5.3 steps 1 and
 * 2), is of the room (`wrong_room`), its signature verifies (`bad_key`, `bad_signature`) and its
 * hop may sign it (C5.4: `hop_not_authorised`, `hop_revoked`).
 */
export function openHopRecord(
  ctx: RoomContext,
  bytes: Uint8Array,
  options: { readonly backend?: CryptoBackend } = {},
): Result<OpenedHopRecord> {
  const backend = options.backend ?? getBackend();
  const read = readHopRecord(bytes);
  if (!read.ok) return read;
  const record = read.value;
  const bad = verifyHopRecord(record, ctx.roomId, backend) ?? checkHopAuthorised(ctx, record);
  if (bad !== undefined) return { ok: false, refusal: bad };
  return { ok: true, value: { record, digest: digestOf(record, backend) } };
}
