/** The refused vectors of §9.1 step 2: the policy. */
import { CLONES, ONE_CLASS, SOLO_ROOM } from '../accepted.js';
import { IDENTITY_POINT, keyOf } from '../keys.js';
import { concat, flip, ORIGIN, patch, SOLO } from '../world.js';
import {
  base,
  NO_SECRET,
  nonCanonicalKey,
  policy,
  policyVariant,
  type RefusedCase,
  sigOffset,
} from './common.js';

export const POLICY: readonly RefusedCase[] = [
  {
    name: 'refuse/policy/truncated',
    note: 'The policy cut inside its signature.',
    reason: 'truncated',
    where: policy,
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      return base(ctx, { policy: b.policy.slice(0, b.policy.length - 1) });
    },
  },
  {
    name: 'refuse/policy/truncated-count',
    note: 'A policy whose pathway count declares more pathways than its bytes hold.',
    reason: 'truncated',
    where: policy,
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      // The pathway count follows the three URIs.
      const p = b.policyFields;
      const at =
        4 +
        1 +
        32 +
        32 +
        24 +
        2 +
        20 +
        2 +
        1 +
        8 * p.tiers.length +
        6 +
        p.server_uri.length +
        p.reload_uri.length +
        p.decision_uri.length;
      if (b.policy[at] !== p.pathways.length)
        throw new Error('the pathway count is not where expected');
      return policyVariant(
        b,
        (x) => x,
        b.policySigner,
        (body) => patch(body, at, 200),
      );
    },
  },
  {
    name: 'refuse/policy/malformed-trailing-byte',
    note: 'One byte after the signature.',
    reason: 'malformed',
    where: policy,
    make: (ctx) => base(ctx, { policy: concat(ctx.built(ONE_CLASS).policy, new Uint8Array([0])) }),
  },
  {
    name: 'refuse/policy/malformed-magic',
    note: "A policy under a decision's magic, signed; the decision names it.",
    reason: 'malformed',
    where: policy,
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      return policyVariant(
        b,
        (x) => x,
        b.policySigner,
        (body) => concat(new TextEncoder().encode('WSD1'), body.slice(4)),
      );
    },
  },
  {
    name: 'refuse/policy/unknown-version',
    note: 'Version 2, signed; the decision names it.',
    reason: 'unknown_version',
    where: policy,
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      return policyVariant(
        b,
        (x) => x,
        b.policySigner,
        (body) => patch(body, 4, 2),
      );
    },
  },
  {
    name: 'refuse/policy/invalid-hysteresis',
    note: 'hysteresis_ppm 1 000 001, signed; the decision names it.',
    reason: 'policy_invalid',
    where: policy,
    make: (ctx) =>
      policyVariant(ctx.built(ONE_CLASS), (p) => ({ ...p, hysteresis_ppm: 1_000_001 })),
  },
  {
    name: 'refuse/policy/invalid-window',
    note: 'window_us 25 s, not a multiple of the 10 s period.',
    reason: 'policy_invalid',
    where: policy,
    make: (ctx) => policyVariant(ctx.built(ONE_CLASS), (p) => ({ ...p, window_us: 25_000_000n })),
  },
  {
    name: 'refuse/policy/invalid-hop-in-two-pathways',
    note: "charlie's interior hop is alpha's: a hop belongs to one pathway.",
    reason: 'policy_invalid',
    where: policy,
    make: (ctx) =>
      policyVariant(ctx.built(ONE_CLASS), (p) => ({
        ...p,
        pathways: p.pathways.map((pw, i) =>
          i === 2
            ? { ...pw, hops: [pw.hops[0]!, { key: p.pathways[0]!.hops[1]!.key, place: 2 }] }
            : pw,
        ),
      })),
  },
  {
    name: 'refuse/policy/invalid-uri-fragment',
    note: 'A decision_uri with "#".',
    reason: 'policy_invalid',
    where: policy,
    make: (ctx) =>
      policyVariant(ctx.built(ONE_CLASS), (p) => ({
        ...p,
        decision_uri: 'https://steer.example.com/v1/decisions#',
      })),
  },
  {
    name: 'refuse/policy/invalid-pathway-id',
    note: 'A pathway ID with a character outside A–Z a–z 0–9 . - _.',
    reason: 'policy_invalid',
    where: policy,
    make: (ctx) =>
      policyVariant(ctx.built(ONE_CLASS), (p) => ({
        ...p,
        pathways: p.pathways.map((pw, i) => (i === 1 ? { ...pw, id: 'bravo!' } : pw)),
      })),
  },
  {
    name: 'refuse/policy/invalid-uri-percent',
    note: 'A reload_uri with a "%" not followed by two hexadecimal digits.',
    reason: 'policy_invalid',
    where: policy,
    make: (ctx) =>
      policyVariant(ctx.built(ONE_CLASS), (p) => ({
        ...p,
        reload_uri: 'https://steer.example.com/v1/steer?room=conf%zz',
      })),
  },
  {
    name: 'refuse/policy/invalid-hop-twice-in-one-pathway',
    note: "alpha's edge hop placed again as its interior hop (C9).",
    reason: 'policy_invalid',
    where: policy,
    make: (ctx) =>
      policyVariant(ctx.built(ONE_CLASS), (p) => ({
        ...p,
        pathways: p.pathways.map((pw, i) =>
          i === 0 ? { ...pw, hops: [pw.hops[0]!, { key: pw.hops[0]!.key, place: 2 }] } : pw,
        ),
      })),
  },
  {
    name: 'refuse/policy/invalid-shares-overflow',
    note: 'min_share_ppm 4294967295 and 2: their sum, computed without overflow, is above 1 000 000 (a u32 sum would wrap to 1).',
    reason: 'policy_invalid',
    where: policy,
    make: (ctx) =>
      policyVariant(ctx.built(ONE_CLASS), (p) => ({
        ...p,
        pathways: p.pathways.map((pw, i) =>
          i < 2 ? { ...pw, min_share_ppm: i === 0 ? 0xffff_ffff : 2 } : pw,
        ),
      })),
  },
  {
    name: 'refuse/policy/invalid-tiers-not-ascending',
    note: 'Tier bitrates 500 000, 1 500 000, 1 500 000, 8 000 000: not strictly ascending.',
    reason: 'policy_invalid',
    where: policy,
    make: (ctx) =>
      policyVariant(ctx.built(ONE_CLASS), (p) => ({
        ...p,
        tiers: [500_000n, 1_500_000n, 1_500_000n, 8_000_000n],
      })),
  },
  {
    name: 'refuse/policy/invalid-flags',
    note: 'flags 2: a bit other than bit 0.',
    reason: 'policy_invalid',
    where: policy,
    make: (ctx) => policyVariant(ctx.built(ONE_CLASS), (p) => ({ ...p, flags: 2 })),
  },
  {
    name: 'refuse/policy/invalid-initial-clone',
    note: 'In the clones scenario, initial names the clone alpha-eu.',
    reason: 'policy_invalid',
    where: policy,
    make: (ctx) => policyVariant(ctx.built(CLONES), (p) => ({ ...p, initial: 2 })),
  },
  {
    name: 'refuse/policy/clone-unknown-later-base',
    note: 'bravo made a clone of charlie, a pathway after it.',
    reason: 'clone_unknown',
    where: policy,
    make: (ctx) =>
      policyVariant(ctx.built(ONE_CLASS), (p) => ({
        ...p,
        pathways: p.pathways.map((pw, i) =>
          i === 1 ? { ...pw, base: 2, host: 'b.cdn.example.com' } : pw,
        ),
      })),
  },
  {
    name: 'refuse/policy/clone-unknown-itself',
    note: 'charlie made a clone of itself.',
    reason: 'clone_unknown',
    where: policy,
    make: (ctx) =>
      policyVariant(ctx.built(ONE_CLASS), (p) => ({
        ...p,
        pathways: p.pathways.map((pw, i) => (i === 2 ? { ...pw, base: 2 } : pw)),
      })),
  },
  {
    name: 'refuse/policy/wrong-room',
    note: "A policy, well signed, for the room without origin's id.",
    reason: 'wrong_room',
    where: policy,
    make: (ctx) => policyVariant(ctx.built(ONE_CLASS), (p) => ({ ...p, room: ctx.solo.roomId })),
  },
  {
    name: 'refuse/policy/bad-key',
    note: "The policy's signer is the identity point.",
    reason: 'bad_key',
    where: policy,
    make: (ctx) => policyVariant(ctx.built(ONE_CLASS), (p) => p, NO_SECRET(IDENTITY_POINT)),
  },
  {
    name: 'refuse/policy/bad-signature',
    note: "One bit of the policy's signature flipped (its digest is unchanged).",
    reason: 'bad_signature',
    where: policy,
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      return base(ctx, { policy: flip(b.policy, sigOffset(b.policy) + 40) });
    },
  },
  {
    name: 'refuse/policy/bad-key-non-canonical',
    note: 'The signer is a point of large order encoded with y ≥ p (companion C2 step 1): bad_key, not bad_signature.',
    reason: 'bad_key',
    where: policy,
    make: (ctx) => policyVariant(ctx.built(ONE_CLASS), (p) => p, NO_SECRET(nonCanonicalKey())),
  },
  {
    name: 'refuse/policy/signer-unlisted',
    note: 'Signed by a key the head does not list.',
    reason: 'signer_not_authorised',
    where: policy,
    make: (ctx) => policyVariant(ctx.built(ONE_CLASS), (p) => p, ORIGIN.unlisted),
  },
  {
    name: 'refuse/policy/signer-without-live-steer',
    note: 'Signed by a hop key: listed, but not the authority and without live/steer.',
    reason: 'signer_not_authorised',
    where: policy,
    make: (ctx) => policyVariant(ctx.built(ONE_CLASS), (p) => p, keyOf('three/alpha/edge')),
  },
  {
    name: 'refuse/policy/signer-revoked',
    note: 'Signed by a steering key whose entry is revoked.',
    reason: 'signer_revoked',
    where: policy,
    make: (ctx) => policyVariant(ctx.built(ONE_CLASS), (p) => p, ORIGIN.steerRevoked),
  },
  {
    name: 'refuse/policy/signer-revoked-without-live-steer',
    note: 'Signed by a revoked hop key (no live/steer): revoked, whatever its may_sign (C9).',
    reason: 'signer_revoked',
    where: policy,
    make: (ctx) => policyVariant(ctx.built(ONE_CLASS), (p) => p, ORIGIN.revokedHop),
  },
  {
    name: 'refuse/policy/room-without-origin-signer-not-authority',
    note: 'A room without origin: only its authority signs, and the policy is signed by another key.',
    reason: 'signer_not_authorised',
    where: policy,
    make: (ctx) => policyVariant(ctx.built(SOLO_ROOM), (p) => p, SOLO.other),
  },
];
