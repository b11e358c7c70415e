/**
 * A simulated site for the demo's `--fill-site`: the edge hop of one pathway reports its Global
 * Available Slots every period (`POST /capacity`, a signed JWS, `docs/live-policy.md`): its slots
 * less the sessions it serves (CATS's GAS is headroom), its slots one fewer each period from
 * `slots` down to 0, as a CDN edge whose resources shrink would; the server signs a policy whose
 * capacity (its load plus the GAS) follows the slots, and once the pathway's load reaches it, new
 * sessions go elsewhere.
 */
import { toHex } from '@wai-steering/wire';
import { base64url, CompactSign, importJWK } from 'jose';
import type { DemoHop } from './setup.js';

/** Options of {@link SiteSimulator}. */
export interface SiteOptions {
  /** The server's base URL. */
  readonly base: string;
  readonly roomId: Uint8Array;
  /** The pathway's ID, and its edge hop (which signs). */
  readonly pathway: string;
  readonly hop: DemoHop;
  /** P, µs: one report a period. */
  readonly periodUs: bigint;
  /** The room clock. */
  readonly clock: () => bigint;
  /** The slots of the first report (default 12). */
  readonly slots?: number;
  /** The sessions the site serves now (none by default): GAS is the slots less these. */
  readonly sessions?: () => number;
  /** Called with each report's GAS and the server's answer. */
  readonly onReport?: (gas: number, status: number, body: string) => void;
}

export class SiteSimulator {
  private timer: NodeJS.Timeout | undefined;
  private slots: number;
  /** Reports are sent one after the other, in order. */
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly o: SiteOptions) {
    this.slots = o.slots ?? 12;
  }

  /** Signs one report of `gas` slots at the room clock's now, valid three periods. */
  async sign(gas: number): Promise<string> {
    const o = this.o;
    const key = await importJWK(
      {
        kty: 'OKP',
        crv: 'Ed25519',
        x: base64url.encode(o.hop.key.publicKey),
        d: base64url.encode(o.hop.key.secretKey),
      },
      'EdDSA',
    );
    const t = o.clock();
    const payload = {
      room: toHex(o.roomId),
      pathway: o.pathway,
      gas,
      t: String(t),
      // Soft state for three periods, and at least 5 s: a report must outlive its way here.
      expires: String(t + (3n * o.periodUs > 5_000_000n ? 3n * o.periodUs : 5_000_000n)),
      window_us: String(o.periodUs),
    };
    return new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
      .setProtectedHeader({ alg: 'EdDSA', kid: toHex(o.hop.key.publicKey) })
      .sign(key);
  }

  private async report(): Promise<void> {
    const gas = Math.max(0, this.slots - (this.o.sessions?.() ?? 0));
    this.slots = Math.max(0, this.slots - 1);
    try {
      const res = await fetch(new URL('/capacity', this.o.base), {
        method: 'POST',
        headers: { 'content-type': 'application/jose' },
        body: await this.sign(gas),
      });
      this.o.onReport?.(gas, res.status, await res.text());
    } catch (e) {
      this.o.onReport?.(gas, 0, String((e as Error).message));
    }
  }

  /** Reports now, then once a period. */
  start(): void {
    const next = (): void => {
      this.chain = this.chain.then(() => this.report());
    };
    next();
    this.timer = setInterval(next, Number(this.o.periodUs / 1000n));
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }
}
