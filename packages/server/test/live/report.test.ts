import { toHex } from '@wai-steering/wire';
import { beforeAll, describe, expect, it } from 'vitest';
import { type ReportContext, verifyCapacityReport } from '../../src/live/report.js';
import { type LiveWorld, liveWorld, newKey, signReport, signReportText } from './world.js';

const NOW = 1_800_000_000_000_000n;

describe('verifyCapacityReport', () => {
  let w: LiveWorld;
  let ctx: ReportContext;
  const payload = (over: Record<string, unknown> = {}) => ({
    room: toHex(w.room.roomId),
    pathway: 'cdn-b',
    gas: 120,
    computing_ms: 8,
    network_ms: 14,
    t: String(NOW),
    expires: String(NOW + 5_000_000n),
    window_us: '1000000',
    ...over,
  });
  beforeAll(() => {
    w = liveWorld();
    ctx = {
      room: w.room,
      policy: w.policy,
      now: NOW,
      maxAheadUs: 2_000_000n,
      maxExpiryUs: 60_000_000n,
    };
  });

  it('takes a report signed by an edge hop of the pathway it names', async () => {
    const jws = await signReport(w.hops[2]!, payload());
    const r = await verifyCapacityReport(jws, ctx);
    expect(r).toEqual({
      ok: true,
      report: {
        pathway: 1,
        hop: toHex(w.hops[2]!.publicKey),
        gas: 120,
        computingMs: 8,
        networkMs: 14,
        t: NOW,
        expires: NOW + 5_000_000n,
        windowUs: 1_000_000n,
      },
    });
  });

  it('takes a report without times, whose latency is then not stated', async () => {
    const { computing_ms: _c, network_ms: _n, ...rest } = payload();
    const r = await verifyCapacityReport(
      await signReport(w.hops[0]!, { ...rest, pathway: 'cdn-a' }),
      ctx,
    );
    expect(r.ok && r.report.computingMs === null && r.report.networkMs === null).toBe(true);
  });

  const refusals: [string, () => Promise<string>, string][] = [
    ['a key that is no hop of the policy', () => signReport(newKey(), payload()), 'unknown_hop'],
    ['another pathway than its hop’s', () => signReport(w.hops[0]!, payload()), 'unknown_hop'],
    ['an interior hop', () => signReport(w.hops[3]!, payload()), 'not_edge_hop'],
    [
      'another room',
      () => signReport(w.hops[2]!, payload({ room: 'ab'.repeat(32) })),
      'wrong_room',
    ],
    ['a revoked hop', () => signReport(w.revoked, payload()), 'hop_revoked'],
    ['a key without live/hop', () => signReport(w.ungranted, payload()), 'hop_not_authorised'],
    [
      'an unknown pathway',
      () => signReport(w.hops[2]!, payload({ pathway: 'cdn-z' })),
      'unknown_pathway',
    ],
    [
      'a gas above u32',
      () => signReport(w.hops[2]!, payload({ gas: 2 ** 32 })),
      'malformed_report',
    ],
    ['a fractional gas', () => signReport(w.hops[2]!, payload({ gas: 1.5 })), 'malformed_report'],
    [
      't as a number',
      () => signReport(w.hops[2]!, payload({ t: Number(NOW) })),
      'malformed_report',
    ],
    ['an unknown field', () => signReport(w.hops[2]!, payload({ extra: 1 })), 'malformed_report'],
    [
      // JSON.parse would take the last value (1 000 000 slots): two readers, two meanings.
      'a member given twice ("gas" twice)',
      () => {
        const text = JSON.stringify(payload()).replace('"gas":120', '"gas":120,"gas":1000000');
        return signReportText(w.hops[2]!, text);
      },
      'malformed_report',
    ],
    [
      'an expiry further after t than live.max_expiry',
      () => signReport(w.hops[2]!, payload({ expires: String(NOW + 60_000_001n) })),
      'expiry_too_far',
    ],
    [
      'an expiry of 2^64 − 1',
      () => signReport(w.hops[2]!, payload({ expires: String((1n << 64n) - 1n) })),
      'expiry_too_far',
    ],
    [
      'expires before t',
      () => signReport(w.hops[2]!, payload({ expires: String(NOW - 1n) })),
      'malformed_report',
    ],
    [
      'an expired report',
      () => signReport(w.hops[2]!, payload({ t: String(NOW - 9_000_000n), expires: String(NOW) })),
      'expired',
    ],
    [
      'a report dated ahead of the clock',
      () =>
        signReport(
          w.hops[2]!,
          payload({ t: String(NOW + 3_000_000n), expires: String(NOW + 9_000_000n) }),
        ),
      'outside_horizon',
    ],
    ['another alg', () => signReport(w.hops[2]!, payload(), { alg: 'HS256' }), 'malformed_report'],
    [
      'a kid in upper case',
      async () => {
        const jws = await signReport(w.hops[2]!, payload(), {
          kid: toHex(w.hops[2]!.publicKey).toUpperCase(),
        });
        return jws;
      },
      'malformed_report',
    ],
  ];
  for (const [what, make, reason] of refusals) {
    it(`refuses ${what} (${reason})`, async () => {
      let jws: string;
      try {
        jws = await make();
      } catch {
        // jose refuses to sign some headers at all (alg HS256 with an OKP key): forge the header.
        const good = await signReport(w.hops[2]!, payload());
        const [, body, sig] = good.split('.');
        const header = Buffer.from(
          JSON.stringify({ alg: 'HS256', kid: toHex(w.hops[2]!.publicKey) }),
        ).toString('base64url');
        jws = `${header}.${body}.${sig}`;
      }
      const r = await verifyCapacityReport(jws, ctx);
      expect(r.ok ? 'taken' : r.refusal.reason).toBe(reason);
    });
  }

  it('refuses a report signed by one hop under another hop’s kid (bad_signature)', async () => {
    const jws = await signReport(newKey(), payload(), { kid: toHex(w.hops[2]!.publicKey) });
    const r = await verifyCapacityReport(jws, ctx);
    expect(r.ok ? 'taken' : r.refusal.reason).toBe('bad_signature');
  });

  it('refuses a payload changed after signing (bad_signature)', async () => {
    const jws = await signReport(w.hops[2]!, payload());
    const [h, , s] = jws.split('.');
    const forged = Buffer.from(JSON.stringify(payload({ gas: 9999 }))).toString('base64url');
    const r = await verifyCapacityReport(`${h}.${forged}.${s}`, ctx);
    expect(r.ok ? 'taken' : r.refusal.reason).toBe('bad_signature');
  });

  it('refuses what is not a compact JWS, whatever it is', async () => {
    for (const junk of ['', 'a.b', 'a.b.c', '...', 'x'.repeat(5000), '{"gas":1}']) {
      const r = await verifyCapacityReport(junk, ctx);
      expect(r.ok ? 'taken' : r.refusal.reason).toBe('malformed_report');
    }
  });
});
