/**
 * The bands' shares (§6.3, §9.2): a pathway with `min_share_ppm` > 0 is placed first for the
 * sessions whose draw falls in its band, so over many sessions the count in its band is binomial.
 * Over the distinct sessions of an archive, each with its draw from the policy of its first
 * decision, the count in each band is set against that expectation as a z-score:
 *
 *   z = (k − Σ p) / √(Σ p (1 − p)),  p = min_share_ppm / 10^6 of the session's policy,
 *
 * and |z| ≥ 4 is flagged (a server minting sessions whose draw avoids a band). The z-score is a
 * statistic of the audit, not a quantity of the rule: it is a float, rounded to 3 decimals.
 */
import { bandOf, drawOf, PPM } from '@wai-steering/rule';
import type { CryptoBackend, Policy } from '@wai-steering/wire';

/** The |z| from which a band's share is flagged. */
export const Z_FLAG = 4;

/** One band's share over an archive. */
export interface ShareResult {
  readonly pathway: string;
  readonly min_share_ppm: number;
  readonly sessions: number;
  readonly in_band: number;
  /** The expected count, Σ p. */
  readonly expected: number;
  readonly z: number;
  readonly flagged: boolean;
}

interface Tally {
  minShare: number;
  sessions: number;
  inBand: number;
  mean: number;
  variance: number;
}

export class ShareTally {
  private readonly tallies = new Map<string, Tally>();

  /** Counts one new session, its draw from `policy` (its first decision's). */
  add(policy: Policy, policyDigest: Uint8Array, session: Uint8Array, backend: CryptoBackend): void {
    let any = false;
    for (const p of policy.pathways) if (p.min_share_ppm > 0) any = true;
    if (!any) return;
    const draw = drawOf(policyDigest, session, backend);
    const band = bandOf(policy, draw);
    policy.pathways.forEach((pw, i) => {
      if (pw.min_share_ppm === 0) return;
      let t = this.tallies.get(pw.id);
      if (t === undefined) {
        t = { minShare: pw.min_share_ppm, sessions: 0, inBand: 0, mean: 0, variance: 0 };
        this.tallies.set(pw.id, t);
      }
      const p = pw.min_share_ppm / PPM;
      t.minShare = pw.min_share_ppm;
      t.sessions++;
      t.mean += p;
      t.variance += p * (1 - p);
      if (band === i) t.inBand++;
    });
  }

  results(): ShareResult[] {
    const out: ShareResult[] = [];
    for (const [pathway, t] of this.tallies) {
      const z = t.variance > 0 ? (t.inBand - t.mean) / Math.sqrt(t.variance) : 0;
      const rounded = Math.round(z * 1000) / 1000;
      out.push({
        pathway,
        min_share_ppm: t.minShare,
        sessions: t.sessions,
        in_band: t.inBand,
        expected: Math.round(t.mean * 1000) / 1000,
        z: Object.is(rounded, -0) ? 0 : rounded,
        flagged: Math.abs(z) >= Z_FLAG,
      });
    }
    return out;
  }
}
