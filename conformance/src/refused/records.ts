/** The refused vectors of §9.1 step 4: each record named. */
import { BEFORE_FIRST_WINDOW, ONE_CLASS } from '../accepted.js';
import { IDENTITY_POINT, keyOf } from '../keys.js';
import {
  concat,
  flip,
  hexBytes,
  namedAt,
  ORIGIN,
  partsOf,
  patch,
  recordOf,
  redecide,
  renaming,
  renamingAll,
} from '../world.js';
import {
  entriesWith,
  evidence,
  givenWith,
  headFields,
  type RefusedCase,
  recordVariant,
  SOLO_WITH_OTHER_RECORDS,
  sigOffset,
  withHead,
  withUnreducedS,
} from './common.js';

export const RECORDS: readonly RefusedCase[] = [
  {
    name: 'refuse/evidence/record-missing',
    note: "bravo's third record is named and not given.",
    reason: 'record_missing',
    where: evidence(1, 2),
    make: (ctx) => givenWith(ctx.built(ONE_CLASS), 1, 2, null),
  },
  {
    name: 'refuse/evidence/record-too-short',
    note: "bravo's fifth record given as its first 150 bytes: too short to reach where its signature would begin, it answers to no digest (C9).",
    reason: 'record_missing',
    where: evidence(1, 4),
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      return givenWith(b, 1, 4, namedAt(b, 1, 4).blob.slice(0, 150));
    },
  },
  {
    name: 'refuse/evidence/truncated-inside-sig',
    note: "alpha's second record given without its last 5 bytes: it answers to its digest (C9), then is truncated.",
    reason: 'truncated',
    where: evidence(0, 1),
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      const blob = namedAt(b, 0, 1).blob;
      return givenWith(b, 0, 1, blob.slice(0, blob.length - 5));
    },
  },
  {
    name: 'refuse/evidence/malformed-trailing-bytes',
    note: "alpha's third record given with 3 bytes after its signature: found by its digest, then malformed.",
    reason: 'malformed',
    where: evidence(0, 2),
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      return givenWith(b, 0, 2, concat(namedAt(b, 0, 2).blob, new Uint8Array([1, 2, 3])));
    },
  },
  {
    name: 'refuse/evidence/malformed-magic',
    note: "bravo's first record with the magic WMHX, signed; the decision names it.",
    reason: 'malformed',
    where: evidence(1, 0),
    make: (ctx) =>
      recordVariant(ctx.built(ONE_CLASS), 1, 0, (f) => f, {
        body: (body) => concat(new TextEncoder().encode('WMHX'), body.slice(4)),
      }),
  },
  {
    name: 'refuse/evidence/unknown-version',
    note: "bravo's fourth record (its interior hop's first) of version 2, signed; the decision names it.",
    reason: 'unknown_version',
    where: evidence(1, 3),
    make: (ctx) =>
      recordVariant(ctx.built(ONE_CLASS), 1, 3, (f) => f, { body: (body) => patch(body, 4, 2) }),
  },
  {
    name: 'refuse/evidence/energy-invalid-class',
    note: "charlie's first record of class 1, not a class.",
    reason: 'energy_invalid',
    where: evidence(2, 0),
    make: (ctx) => recordVariant(ctx.built(ONE_CLASS), 2, 0, (f) => ({ ...f, class: 1 })),
  },
  {
    name: 'refuse/evidence/energy-invalid-unmetered-joules',
    note: "charlie's fifth record: the unmetered marker with 5 µJ.",
    reason: 'energy_invalid',
    where: evidence(2, 4),
    make: (ctx) =>
      recordVariant(ctx.built(ONE_CLASS), 2, 4, (f) => ({ ...f, class: 0, joules: 5n })),
  },
  {
    name: 'refuse/evidence/record-invalid-track-twice',
    note: "alpha's fifth record with its media track out listed twice.",
    reason: 'record_invalid',
    where: evidence(0, 4),
    make: (ctx) =>
      recordVariant(ctx.built(ONE_CLASS), 0, 4, (f) => ({
        ...f,
        tracks: [...f.tracks, f.tracks[1]!],
      })),
  },
  {
    name: 'refuse/evidence/record-invalid-span',
    note: "bravo's sixth record ends where it starts.",
    reason: 'record_invalid',
    where: evidence(1, 5),
    make: (ctx) => recordVariant(ctx.built(ONE_CLASS), 1, 5, (f) => ({ ...f, end: f.start })),
  },
  {
    name: 'refuse/evidence/wrong-room',
    note: "charlie's second record, well signed by its hop, for the room without origin's id.",
    reason: 'wrong_room',
    where: evidence(2, 1),
    make: (ctx) =>
      recordVariant(ctx.built(ONE_CLASS), 2, 1, (f) => ({ ...f, room: ctx.solo.roomId })),
  },
  {
    name: 'refuse/evidence/bad-key',
    note: "alpha's first record signed for the identity point as its hop.",
    reason: 'bad_key',
    where: evidence(0, 0),
    make: (ctx) =>
      recordVariant(ctx.built(ONE_CLASS), 0, 0, (f) => ({ ...f, hop: IDENTITY_POINT }), {
        key: null,
      }),
  },
  {
    name: 'refuse/evidence/bad-signature',
    note: "One bit of bravo's second record's signature flipped (its digest is unchanged).",
    reason: 'bad_signature',
    where: evidence(1, 1),
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      const blob = namedAt(b, 1, 1).blob;
      return givenWith(b, 1, 1, flip(blob, sigOffset(blob) + 40));
    },
  },
  {
    name: 'refuse/evidence/hop-without-energy-label',
    note: "charlie's edge hop, listed for energy/OnChipCounter only, signs its third record as ModelBased.",
    reason: 'hop_not_authorised',
    where: evidence(2, 2),
    make: (ctx) => recordVariant(ctx.built(ONE_CLASS), 2, 2, (f) => ({ ...f, class: 2 })),
  },
  {
    name: 'refuse/evidence/hop-unlisted',
    note: "alpha's fourth record signed by a key the head does not list.",
    reason: 'hop_not_authorised',
    where: evidence(0, 3),
    make: (ctx) =>
      recordVariant(ctx.built(ONE_CLASS), 0, 3, (f) => ({ ...f, hop: ORIGIN.unlisted.pub }), {
        key: ORIGIN.unlisted,
      }),
  },
  {
    name: 'refuse/evidence/hop-without-live-hop',
    note: "alpha's sixth record signed by the steering key: listed, with energy/OnChipCounter, without live/hop.",
    reason: 'hop_not_authorised',
    where: evidence(0, 5),
    make: (ctx) =>
      recordVariant(ctx.built(ONE_CLASS), 0, 5, (f) => ({ ...f, hop: ORIGIN.steer.pub }), {
        key: ORIGIN.steer,
      }),
  },
  {
    name: 'refuse/evidence/hop-revoked',
    note: "The head revokes bravo's edge hop (signed by the origin); everything else as the base.",
    reason: 'hop_revoked',
    where: evidence(1, 0),
    make: (ctx) =>
      withHead(
        ctx,
        {
          ...headFields(ctx),
          entries: entriesWith(ctx, keyOf('three/bravo/edge').pub, (e) => ({ ...e, status: 2 })),
        },
        ORIGIN.origin.secret,
      ),
  },
  {
    name: 'refuse/evidence/hop-revoked-key',
    note: "charlie's sixth record signed by a revoked hop key.",
    reason: 'hop_revoked',
    where: evidence(2, 5),
    make: (ctx) =>
      recordVariant(ctx.built(ONE_CLASS), 2, 5, (f) => ({ ...f, hop: ORIGIN.revokedHop.pub }), {
        key: ORIGIN.revokedHop,
      }),
  },
  {
    name: 'refuse/evidence/hop-revoked-without-live-hop',
    note: "charlie's fourth record signed by the revoked steering key (no live/hop): revoked comes before live/hop (C9).",
    reason: 'hop_revoked',
    where: evidence(2, 3),
    make: (ctx) =>
      recordVariant(ctx.built(ONE_CLASS), 2, 3, (f) => ({ ...f, hop: ORIGIN.steerRevoked.pub }), {
        key: ORIGIN.steerRevoked,
      }),
  },
  {
    name: 'refuse/evidence/signature-s-not-reduced',
    note: "alpha's third record with S + L in place of S (its digest is unchanged).",
    reason: 'bad_signature',
    where: evidence(0, 2),
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      return givenWith(b, 0, 2, withUnreducedS(namedAt(b, 0, 2).blob));
    },
  },
  {
    name: 'refuse/evidence/not-on-pathway',
    note: "alpha's second record replaced by the same span signed by a listed hop of no pathway.",
    reason: 'evidence_not_on_pathway',
    where: evidence(0, 1),
    make: (ctx) =>
      recordVariant(ctx.built(ONE_CLASS), 0, 1, (f) => ({ ...f, hop: ORIGIN.spareHop.pub }), {
        key: ORIGIN.spareHop,
      }),
  },
  {
    name: 'refuse/evidence/not-on-pathway-before-window',
    note: "alpha's first record replaced by one of charlie's edge hop from before the window: not on the pathway is checked first (step 4.4 before 4.5).",
    reason: 'evidence_not_on_pathway',
    where: evidence(0, 0),
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      const other = recordOf(b, 'three/charlie/edge', -4);
      return redecide(b, { evidence: renaming(0, 0, other.blob, other.fields) });
    },
  },
  {
    name: 'refuse/evidence/outside-window-before',
    note: "bravo's first record replaced by its edge hop's record of the period before the window.",
    reason: 'evidence_outside_window',
    where: evidence(1, 0),
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      const early = recordOf(b, 'three/bravo/edge', -4);
      return redecide(b, { evidence: renaming(1, 0, early.blob, early.fields) });
    },
  },
  {
    name: 'refuse/evidence/outside-window-after',
    note: "charlie's third record replaced by its edge hop's record of the period after the window (it ends after b).",
    reason: 'evidence_outside_window',
    where: evidence(2, 2),
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      const late = recordOf(b, 'three/charlie/edge', 0);
      return redecide(b, { evidence: renaming(2, 2, late.blob, late.fields) });
    },
  },
  {
    name: 'refuse/evidence/order-start',
    note: "alpha's first two records named in the wrong order of start: step 4.6, decision_invalid at the record.",
    reason: 'decision_invalid',
    where: evidence(0, 1),
    make: (ctx) =>
      redecide(ctx.built(ONE_CLASS), {
        evidence: renamingAll(0, (n) => [n[1]!, n[0]!, ...n.slice(2)]),
      }),
  },
  {
    name: 'refuse/evidence/order-same-start',
    note: "alpha's second record replaced by a second record of its edge hop for the first period (other joules): a later start is strictly later.",
    reason: 'decision_invalid',
    where: evidence(0, 1),
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      const first = namedAt(b, 0, 0).fields;
      return recordVariant(b, 0, 1, (f) => ({
        ...f,
        start: first.start,
        end: first.end,
        joules: f.joules + 1n,
      }));
    },
  },
  {
    name: 'refuse/evidence/outside-window-b-zero',
    note: 'At t = L + 1 s the window is [0, 0): any record named is outside it (C9).',
    reason: 'evidence_outside_window',
    where: evidence(0, 0),
    make: (ctx) => {
      const b = ctx.built(BEFORE_FIRST_WINDOW);
      const rec = recordOf(b, 'early/alpha/edge', -3);
      return redecide(b, {
        evidence: renamingAll(0, () => [{ record: rec.fields, digest: hexBytes(rec.digest) }]),
      });
    },
  },
  {
    name: 'refuse/evidence/order-hop',
    note: "alpha's interior hop's records named before its edge hop's: step 4.6 at the first edge record.",
    reason: 'decision_invalid',
    where: evidence(0, 3),
    make: (ctx) =>
      redecide(ctx.built(ONE_CLASS), {
        evidence: renamingAll(0, (n) => [...n.slice(3), ...n.slice(0, 3)]),
      }),
  },
  {
    name: 'refuse/evidence/duplicate-digest-first-given-malformed',
    note: "Two given blobs answer to alpha's first digest: a copy with a trailing byte first, then the record. The first given is used (C9): malformed.",
    reason: 'malformed',
    where: evidence(0, 0),
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      const blob = namedAt(b, 0, 0).blob;
      const parts = partsOf(b);
      return { ...parts, records: [concat(blob, new Uint8Array([0])), ...parts.records] };
    },
  },
  {
    name: 'refuse/evidence/room-without-origin-hop-not-authority',
    note: "A room without origin: the records of the other pathway's hop, a key other than the authority, are named.",
    reason: 'hop_not_authorised',
    where: evidence(1, 0),
    make: (ctx) => partsOf(ctx.built(SOLO_WITH_OTHER_RECORDS)),
  },
];
