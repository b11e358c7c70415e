/** The refused vectors of §9.1 step 3: the decision. */
import { encodePolicy } from '@wai-steering/wire';
import { ONE_CLASS, PER_SECOND, SOLO_ROOM } from '../accepted.js';
import { IDENTITY_POINT, keyOf } from '../keys.js';
import {
  concat,
  flip,
  keyLogOf,
  ORIGIN,
  P,
  partsOf,
  patch,
  redecide,
  renamingAll,
  SOLO,
  seal,
} from '../world.js';
import {
  base,
  decision,
  entriesWith,
  evidence,
  headFields,
  NO_SECRET,
  type RefusedCase,
  sigOffset,
  withUnreducedS,
} from './common.js';

export const DECISION: readonly RefusedCase[] = [
  {
    name: 'refuse/decision/truncated',
    note: 'The decision cut inside its signature.',
    reason: 'truncated',
    where: decision,
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      return base(ctx, { decision: b.decision.slice(0, b.decision.length - 1) });
    },
  },
  {
    name: 'refuse/decision/malformed-trailing-byte',
    note: 'One byte after the signature.',
    reason: 'malformed',
    where: decision,
    make: (ctx) =>
      base(ctx, { decision: concat(ctx.built(ONE_CLASS).decision, new Uint8Array([0])) }),
  },
  {
    name: 'refuse/decision/unknown-version',
    note: 'Version 2, signed.',
    reason: 'unknown_version',
    where: decision,
    make: (ctx) => redecide(ctx.built(ONE_CLASS), { body: (body) => patch(body, 4, 2) }),
  },
  {
    name: 'refuse/decision/invalid-priority',
    note: 'A priority naming bravo twice and charlie never.',
    reason: 'decision_invalid',
    where: decision,
    make: (ctx) =>
      redecide(ctx.built(ONE_CLASS), { fields: (f) => ({ ...f, priority: [1, 1, 0] }) }),
  },
  {
    name: 'refuse/decision/invalid-draw',
    note: 'A draw of 1 000 000.',
    reason: 'decision_invalid',
    where: decision,
    make: (ctx) => redecide(ctx.built(ONE_CLASS), { fields: (f) => ({ ...f, draw: 1_000_000 }) }),
  },
  {
    name: 'refuse/decision/invalid-figure-without-joules',
    note: 'A pathway stated with a figure of 0 joules.',
    reason: 'decision_invalid',
    where: decision,
    make: (ctx) =>
      redecide(ctx.built(ONE_CLASS), {
        fields: (f) => ({
          ...f,
          pathways: f.pathways.map((p, i) => (i === 0 ? { ...p, joules: 0n } : p)),
        }),
      }),
  },
  {
    name: 'refuse/decision/invalid-digest-named-twice',
    note: "charlie names alpha's first record again: no digest twice in a decision, across pathways too (C9).",
    reason: 'decision_invalid',
    where: decision,
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      const alpha0 = b.evidence.pathways[0]!.named[0]!;
      return redecide(b, { evidence: renamingAll(2, (n) => [alpha0, ...n.slice(1)]) });
    },
  },
  {
    name: 'refuse/decision/invalid-absent-value-not-zero',
    note: 'The report states no current pathway but its pathway byte is 2.',
    reason: 'decision_invalid',
    where: decision,
    make: (ctx) =>
      redecide(ctx.built(ONE_CLASS), {
        fields: (f) => ({ ...f, report: { ...f.report, pathway: 2 } }),
      }),
  },
  {
    name: 'refuse/decision/invalid-report-pathway',
    note: 'The report states current pathway 3 of a decision of three pathways.',
    reason: 'decision_invalid',
    where: decision,
    make: (ctx) =>
      redecide(ctx.built(ONE_CLASS), {
        fields: (f) => ({
          ...f,
          report: { ...f.report, present: f.report.present | 1, pathway: 3 },
        }),
      }),
  },
  {
    name: 'refuse/decision/wrong-room',
    note: "A decision, well signed, for the room without origin's id.",
    reason: 'wrong_room',
    where: decision,
    make: (ctx) =>
      redecide(ctx.built(ONE_CLASS), { fields: (f) => ({ ...f, room: ctx.solo.roomId }) }),
  },
  {
    name: 'refuse/decision/policy-not-given',
    note: 'The decision names the digest of another policy (the same with ttl_s 600): record_missing at the decision.',
    reason: 'record_missing',
    where: decision,
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      const other = seal(
        'WSP1',
        encodePolicy({ ...b.policyFields, ttl_s: 600 }),
        b.policySigner.secret,
      );
      return { ...redecide(b, { policy: { bytes: other } }), policy: b.policy };
    },
  },
  {
    name: 'refuse/decision/invalid-pathway-count',
    note: "A decision of two pathways under the policy's three (its own rules hold).",
    reason: 'decision_invalid',
    where: decision,
    make: (ctx) =>
      redecide(ctx.built(ONE_CLASS), {
        fields: (f) => ({ ...f, pathways: f.pathways.slice(0, 2), priority: [1, 0] }),
      }),
  },
  {
    name: 'refuse/decision/bad-key',
    note: "The decision's signer is the identity point.",
    reason: 'bad_key',
    where: decision,
    make: (ctx) => redecide(ctx.built(ONE_CLASS), { signer: NO_SECRET(IDENTITY_POINT) }),
  },
  {
    name: 'refuse/decision/bad-signature',
    note: "One bit of the decision's signature flipped.",
    reason: 'bad_signature',
    where: decision,
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      return base(ctx, { decision: flip(b.decision, sigOffset(b.decision) + 40) });
    },
  },
  {
    name: 'refuse/decision/signature-s-not-reduced',
    note: "The decision's signature with S + L in place of S: the same point equation, but S is not below L (C2 step 4).",
    reason: 'bad_signature',
    where: decision,
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      return base(ctx, { decision: withUnreducedS(b.decision) });
    },
  },
  {
    name: 'refuse/decision/t-moved',
    note: 'The decision states t one period later, signed: its window is [T0 − 2P, T0 + P), and the first record it names is outside it.',
    reason: 'evidence_outside_window',
    where: evidence(0, 0),
    make: (ctx) => redecide(ctx.built(ONE_CLASS), { fields: (f) => ({ ...f, t: f.t + P }) }),
  },
  {
    name: 'refuse/decision/signer-without-energy-label',
    note: 'Signed by a steering key with live/steer and no energy/ label, for a decision stating OnChipCounter figures.',
    reason: 'signer_not_authorised',
    where: decision,
    make: (ctx) => redecide(ctx.built(ONE_CLASS), { signer: ORIGIN.steerNoEnergy }),
  },
  {
    name: 'refuse/decision/signer-unlisted',
    note: 'Signed by a key the head does not list.',
    reason: 'signer_not_authorised',
    where: decision,
    make: (ctx) => redecide(ctx.built(ONE_CLASS), { signer: ORIGIN.unlisted }),
  },
  {
    name: 'refuse/decision/signer-hop-key',
    note: 'Signed by a hop key: listed with energy/OnChipCounter, but without live/steer.',
    reason: 'signer_not_authorised',
    where: decision,
    make: (ctx) => redecide(ctx.built(ONE_CLASS), { signer: keyOf('three/alpha/edge') }),
  },
  {
    name: 'refuse/decision/signer-revoked',
    note: 'Signed by a steering key whose entry is revoked.',
    reason: 'signer_revoked',
    where: decision,
    make: (ctx) => redecide(ctx.built(ONE_CLASS), { signer: ORIGIN.steerRevoked }),
  },
  {
    name: 'refuse/decision/authority-without-energy-label',
    note: 'The per-second scenario, whose policy and decision the authority signs, under a head listing the authority with live/room alone: it needs energy/OnChipCounter to state the figures (C9).',
    reason: 'signer_not_authorised',
    where: decision,
    make: (ctx) => ({
      ...partsOf(ctx.built(PER_SECOND)),
      keyLog: keyLogOf(
        {
          ...headFields(ctx, PER_SECOND),
          entries: entriesWith(
            ctx,
            ORIGIN.authority.pub,
            (e) => ({ ...e, may_sign: ['live/room'] }),
            PER_SECOND,
          ),
        },
        ORIGIN.origin.secret,
      ),
    }),
  },
  {
    name: 'refuse/decision/room-without-origin-signer-not-authority',
    note: 'A room without origin: the decision is signed by a key other than its authority.',
    reason: 'signer_not_authorised',
    where: decision,
    make: (ctx) => redecide(ctx.built(SOLO_ROOM), { signer: SOLO.other }),
  },
];
