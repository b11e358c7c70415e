import {
  type CloneParam,
  NO_CAPACITY_LIMIT,
  NOT_A_CLONE,
  type PolicyFields,
  type PolicyPathway,
} from '@wai-steering/wire';

export interface P {
  readonly id: string;
  readonly base?: number;
  readonly host?: string;
  readonly params?: readonly CloneParam[];
}

export function policyOf(pathways: readonly P[], opts: Partial<PolicyFields> = {}): PolicyFields {
  return {
    room: new Uint8Array(32),
    signer: new Uint8Array(32),
    period_us: 1n,
    window_us: 1n,
    lag_us: 0n,
    basis: 1,
    floor: 0,
    latency_ceiling_ms: 100,
    min_buffer_ms: 0,
    hysteresis_ppm: 0,
    ttl_s: 300,
    min_ttl_s: 30,
    flags: 0,
    initial: 0,
    tiers: [1n],
    server_uri: 'https://steer.example/v1/steer',
    reload_uri: 'https://steer.example/v1/steer',
    decision_uri: 'https://steer.example/v1/decision/',
    ...opts,
    pathways: pathways.map(
      (p, i): PolicyPathway => ({
        id: p.id,
        base: p.base ?? NOT_A_CLONE,
        host: p.host ?? '',
        params: p.params ?? [],
        top_tier: 0,
        latency_ms: 10,
        capacity: NO_CAPACITY_LIMIT,
        min_share_ppm: 0,
        hops: [{ key: new Uint8Array(32).fill(i + 1), place: 1 }],
      }),
    ),
  };
}

/** Session 00 01 … 0f and digest 00 11 22 … (lowercase in the text). */
export const SESSION = Uint8Array.from({ length: 16 }, (_, i) => i);
export const SESSION_HEX = '000102030405060708090a0b0c0d0e0f';
export const DIGEST_HEX = '00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff';
export const DIGEST = Uint8Array.from({ length: 32 }, (_, i) => (i % 16) * 0x11);
