// A small room for the live-policy tests: two pathways, each an edge and an interior hop, a key
// log granting the hops `live/hop`, one revoked hop and one key the log does not grant.
import { randomBytes } from 'node:crypto';
import { openRoom, type RoomContext } from '@wai-steering/verifier';
import {
  compareBytes,
  type KeyLogEntry,
  type Policy,
  type PolicyFields,
  readPolicy,
  readRoom,
  roomIdOf,
  signKeyLog,
  signPolicy,
  signRoom,
  unwrap,
} from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { base64url, CompactSign, importJWK } from 'jose';

export interface Key {
  readonly secretKey: Uint8Array;
  readonly publicKey: Uint8Array;
}

export function newKey(): Key {
  const secretKey = new Uint8Array(randomBytes(32));
  return { secretKey, publicKey: nodeBackend.publicKey(secretKey) };
}

export interface LiveWorld {
  readonly room: RoomContext;
  readonly policy: Policy;
  readonly fields: PolicyFields;
  readonly steering: Key;
  /** cdn-a edge, cdn-a interior, cdn-b edge, cdn-b interior. */
  readonly hops: readonly Key[];
  /** An edge hop of cdn-b whose entry is revoked. */
  readonly revoked: Key;
  /** An edge hop of cdn-b the key log does not grant `live/hop`. */
  readonly ungranted: Key;
}

export function liveWorld(): LiveWorld {
  const authority = newKey();
  const origin = newKey();
  const steering = newKey();
  const hops = [newKey(), newKey(), newKey(), newKey()];
  const revoked = newKey();
  const ungranted = newKey();
  const roomBytes = signRoom(
    { authority: authority.publicKey, origin: origin.publicKey, name: 'live test' },
    authority.secretKey,
    { backend: nodeBackend },
  );
  const roomId = roomIdOf(unwrap(readRoom(roomBytes)), nodeBackend);
  const entries: KeyLogEntry[] = [
    { key: authority.publicKey, status: 1, may_sign: ['live/room'] },
    { key: steering.publicKey, status: 1, may_sign: ['live/steer'] },
    ...hops.map((h) => ({ key: h.publicKey, status: 1, may_sign: ['live/hop'] })),
    { key: revoked.publicKey, status: 2, may_sign: ['live/hop'] },
    { key: ungranted.publicKey, status: 1, may_sign: ['live/steer'] },
  ].sort((x, y) => compareBytes(x.key, y.key));
  const keyLogBytes = signKeyLog(
    { origin: origin.publicKey, seq: 0n, prev: new Uint8Array(32), entries },
    origin.secretKey,
    { backend: nodeBackend },
  );
  const room = unwrap(openRoom(roomBytes, keyLogBytes, { backend: nodeBackend }));
  const pathway = (id: string, capacity: number, hopKeys: [Key, number][]) => ({
    id,
    base: 255,
    host: '',
    params: [],
    top_tier: 1,
    latency_ms: 40,
    capacity,
    min_share_ppm: 0,
    hops: hopKeys.map(([k, place]) => ({ key: k.publicKey, place })),
  });
  const fields: PolicyFields = {
    room: roomId,
    signer: steering.publicKey,
    period_us: 2_000_000n,
    window_us: 6_000_000n,
    lag_us: 1_000_000n,
    basis: 1,
    floor: 0,
    latency_ceiling_ms: 100,
    min_buffer_ms: 4000,
    hysteresis_ppm: 50_000,
    ttl_s: 10,
    min_ttl_s: 2,
    flags: 0,
    initial: 0,
    tiers: [1_000_000n, 3_000_000n],
    server_uri: 'http://127.0.0.1:8080/steer',
    reload_uri: 'http://127.0.0.1:8080/steer',
    decision_uri: 'http://127.0.0.1:8080/decisions/',
    pathways: [
      pathway('cdn-a', 500, [
        [hops[0]!, 1],
        [hops[1]!, 2],
      ]),
      pathway('cdn-b', 300, [
        [hops[2]!, 1],
        [hops[3]!, 2],
        [revoked, 1],
        [ungranted, 1],
      ]),
    ],
  };
  const policy = unwrap(
    readPolicy(signPolicy(fields, steering.secretKey, { backend: nodeBackend })),
  );
  return { room, policy, fields, steering, hops, revoked, ungranted };
}

/** Signs a capacity report as a site would: a compact JWS, EdDSA, `kid` the hop key in hex. */
export function signReport(
  key: Key,
  payload: Record<string, unknown>,
  header: Record<string, unknown> = {},
): Promise<string> {
  return signReportText(key, JSON.stringify(payload), header);
}

/** Signs a report's payload given as text (a member twice, say). */
export async function signReportText(
  key: Key,
  payload: string,
  header: Record<string, unknown> = {},
): Promise<string> {
  const jwk = {
    kty: 'OKP',
    crv: 'Ed25519',
    x: base64url.encode(key.publicKey),
    d: base64url.encode(key.secretKey),
  };
  const k = await importJWK(jwk, 'EdDSA');
  return new CompactSign(new TextEncoder().encode(payload))
    .setProtectedHeader({
      alg: 'EdDSA',
      kid: Buffer.from(key.publicKey).toString('hex'),
      ...header,
    })
    .sign(k);
}
