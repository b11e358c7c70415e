/**
 * Capacity reports (the steering server's `POST /capacity`, `docs/live-policy.md`): an edge hop
 * that knows how many concurrent sessions it can serve reports its Global Available Slots (the
 * CATS draft's GAS) after each period, signed as a compact JWS (RFC 7515, EdDSA of RFC 8037)
 * with its own key, so that the server keeps the pathway's capacity in step. GAS is the slots
 * configured less the sessions the period's record states, never below 0; the report is soft
 * state that expires after a few periods, so a hop that stops reporting ages out to 0.
 */
import { toHex } from '@wai-steering/wire';
import { base64url, CompactSign, importJWK } from 'jose';
import type { HopKey } from './keys.js';

/** Options of {@link CapacityReporter}. */
export interface CapacityOptions {
  readonly key: HopKey;
  readonly roomId: Uint8Array;
  /** The pathway ID the hop is an edge of. */
  readonly pathway: string;
  /** The concurrent sessions the hop can serve. */
  readonly slots: number;
  /** µs a report stays valid (soft state). */
  readonly expiresUs: bigint;
  /** The measurement window: the period, µs. */
  readonly windowUs: bigint;
  /** The site's times for its clients, ms, when known (§6.1's latency is their sum). */
  readonly computingMs?: number;
  readonly networkMs?: number;
  /** The steering servers' base URLs. */
  readonly servers: readonly string[];
  readonly fetch?: typeof fetch;
  readonly log?: (line: Record<string, unknown>) => void;
}

export class CapacityReporter {
  private key: Promise<Awaited<ReturnType<typeof importJWK>>> | undefined;
  /** Refusals already logged, by server and reason: logged once. */
  private readonly logged = new Set<string>();

  constructor(private readonly o: CapacityOptions) {
    if (!Number.isSafeInteger(o.slots) || o.slots < 0 || o.slots > 0xffff_ffff) {
      throw new TypeError('CapacityReporter: slots is a u32');
    }
  }

  /** GAS for a period whose record states `sessions`. */
  gasOf(sessions: number): number {
    return Math.max(0, this.o.slots - sessions);
  }

  /** The compact JWS of a report at `t` (room clock µs) of `gas` slots. */
  async sign(t: bigint, gas: number): Promise<string> {
    const o = this.o;
    this.key ??= importJWK(
      {
        kty: 'OKP',
        crv: 'Ed25519',
        x: base64url.encode(o.key.publicKey),
        d: base64url.encode(o.key.secretKey),
      },
      'EdDSA',
    );
    const payload: Record<string, unknown> = {
      room: toHex(o.roomId),
      pathway: o.pathway,
      gas,
      ...(o.computingMs === undefined ? {} : { computing_ms: o.computingMs }),
      ...(o.networkMs === undefined ? {} : { network_ms: o.networkMs }),
      t: String(t),
      expires: String(t + o.expiresUs),
      window_us: String(o.windowUs),
    };
    return new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
      .setProtectedHeader({ alg: 'EdDSA', kid: toHex(o.key.publicKey) })
      .sign(await this.key);
  }

  /** Signs and sends the report of a period that ended at `t` with `sessions` served. */
  async report(t: bigint, sessions: number): Promise<void> {
    const gas = this.gasOf(sessions);
    const jws = await this.sign(t, gas);
    const f = this.o.fetch ?? fetch;
    await Promise.all(
      this.o.servers.map(async (server) => {
        try {
          const res = await f(new URL('/capacity', server), {
            method: 'POST',
            headers: { 'content-type': 'application/jose' },
            body: jws,
          });
          const body = await res.text();
          if (res.status === 200 || res.status === 201) return;
          this.once(server, `${res.status}`, { status: res.status, body: body.trim() });
        } catch (e) {
          this.once(server, 'network', { error: (e as Error).message });
        }
      }),
    );
  }

  private once(server: string, why: string, detail: Record<string, unknown>): void {
    const k = `${server} ${why}`;
    if (this.logged.has(k)) return;
    this.logged.add(k);
    this.o.log?.({ msg: 'capacity report not taken', server, ...detail });
  }
}
