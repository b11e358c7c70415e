/**
 * The checks at start: the hop's key is one the room's key log lets sign per-hop records
 * (`live/hop`) and state the configured class (`energy/<label>`), companion C4 and C5.4, as a
 * steering server will check each record on ingest; a refusal names the entry and what it lacks.
 */
import { checkHopAuthorised, openRoom, type RoomContext } from '@wai-steering/verifier';
import { CLASS_LABEL, jwkToKeyPair, toHex } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { AgentConfigError } from './types.js';

/** A hop's key pair. */
export interface HopKey {
  readonly secretKey: Uint8Array;
  readonly publicKey: Uint8Array;
}

/** Reads a hop's key from an RFC 8037 Ed25519 JWK (with `d`). */
export function hopKeyFromJwk(jwk: unknown, where: string): HopKey {
  let pair: { publicKey: Uint8Array; secretKey?: Uint8Array };
  try {
    pair = jwkToKeyPair(jwk);
  } catch (e) {
    throw new AgentConfigError(`${where}: not an Ed25519 JWK (${(e as Error).message})`);
  }
  if (pair.secretKey === undefined) {
    throw new AgentConfigError(`${where}: holds a public key only (no "d"); the hop signs with it`);
  }
  return { secretKey: pair.secretKey, publicKey: pair.publicKey };
}

/** Opens the room (§9.1 step 1) as a server will; a refusal is an {@link AgentConfigError}. */
export function openHopRoom(roomBytes: Uint8Array, keyLogBytes: Uint8Array | null): RoomContext {
  const opened = openRoom(roomBytes, keyLogBytes, { backend: nodeBackend });
  if (!opened.ok) {
    const r = opened.refusal;
    throw new AgentConfigError(
      `the room or its key log does not verify: ${r.reason}${r.where.field === undefined ? '' : ` at ${r.where.field}`}`,
    );
  }
  return opened.value;
}

/**
 * C5.4: the hop's key may sign records of `cls` in the room: listed, not revoked, `live/hop`,
 * and `energy/<label>` for a metered class. Throws an {@link AgentConfigError} naming the entry.
 */
export function checkHopKey(ctx: RoomContext, hop: Uint8Array, cls: number): void {
  const hex = toHex(hop);
  const bad = checkHopAuthorised(ctx, { hop, class: cls });
  if (bad === undefined) return;
  if (ctx.keyLog === undefined) {
    throw new AgentConfigError(
      `the room names no origin, so only its authority signs records, and the hop's key ${hex} is not the authority`,
    );
  }
  const head = `the key log (seq ${ctx.keyLog.seq})`;
  const entry = ctx.entries.get(hex);
  if (entry === undefined) {
    throw new AgentConfigError(
      `${head} does not list the hop's key ${hex}: add it with live/hop${cls === 0 ? '' : ` and energy/${CLASS_LABEL[cls]}`}`,
    );
  }
  const has = entry.may_sign.join(' ') || 'nothing';
  if (bad.reason === 'hop_revoked') {
    throw new AgentConfigError(`${head} lists the hop's key ${hex} as revoked`);
  }
  if (!entry.may_sign.includes('live/hop')) {
    throw new AgentConfigError(`${head} entry ${hex} does not grant live/hop (it grants ${has})`);
  }
  throw new AgentConfigError(
    `${head} entry ${hex} does not grant energy/${CLASS_LABEL[cls]} for the configured class (it grants ${has})`,
  );
}
