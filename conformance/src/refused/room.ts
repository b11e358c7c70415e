/** The refused vectors of §9.1 step 1, C6: the room. */
import { encodeRoom } from '@wai-steering/wire';
import { ONE_CLASS } from '../accepted.js';
import { IDENTITY_POINT } from '../keys.js';
import {
  concat,
  flip,
  keyLogOf,
  ORIGIN,
  ORIGIN_ROOM_FIELDS,
  patch,
  roomOf,
  seal,
} from '../world.js';
import {
  base,
  entriesWith,
  headFields,
  inRoom,
  type RefusedCase,
  room,
  sigOffset,
  withHead,
} from './common.js';

export const ROOM: readonly RefusedCase[] = [
  {
    name: 'refuse/room/truncated-3-bytes',
    note: 'A descriptor of 3 bytes: truncated, whatever they hold (C9).',
    reason: 'truncated',
    where: room,
    make: (ctx) => base(ctx, { room: new TextEncoder().encode('WRD') }),
  },
  {
    name: 'refuse/room/truncated',
    note: 'The descriptor cut inside its origin.',
    reason: 'truncated',
    where: room,
    make: (ctx) => base(ctx, { room: ctx.env(ONE_CLASS).room.slice(0, 50) }),
  },
  {
    name: 'refuse/room/malformed-magic',
    note: "A descriptor whose magic is a key log's.",
    reason: 'malformed',
    where: room,
    make: (ctx) =>
      base(ctx, {
        room: concat(new TextEncoder().encode('WKL1'), ctx.env(ONE_CLASS).room.slice(4)),
      }),
  },
  {
    name: 'refuse/room/malformed-trailing-byte',
    note: 'One byte after the signature.',
    reason: 'malformed',
    where: room,
    make: (ctx) => base(ctx, { room: concat(ctx.env(ONE_CLASS).room, new Uint8Array([0])) }),
  },
  {
    name: 'refuse/room/unknown-version',
    note: 'Version 2, signed by the authority; everything else made for that room id.',
    reason: 'unknown_version',
    where: room,
    make: (ctx) =>
      inRoom(
        ctx,
        seal('WRD1', patch(encodeRoom(ORIGIN_ROOM_FIELDS), 4, 2), ORIGIN.authority.secret),
      ),
  },
  {
    name: 'refuse/room/invalid-name',
    note: 'An empty name, signed by the authority; everything else made for that room id.',
    reason: 'room_invalid',
    where: room,
    make: (ctx) =>
      inRoom(ctx, roomOf({ ...ORIGIN_ROOM_FIELDS, name: '' }, ORIGIN.authority.secret)),
  },
  {
    name: 'refuse/room/invalid-name-control-character',
    note: 'A name with DEL (0x7F), not printable.',
    reason: 'room_invalid',
    where: room,
    make: (ctx) =>
      inRoom(
        ctx,
        roomOf(
          { ...ORIGIN_ROOM_FIELDS, name: 'WAI conformance room\u007f' },
          ORIGIN.authority.secret,
        ),
      ),
  },
  {
    name: 'refuse/room/bad-key-authority',
    note: 'The authority is the identity point (0x01 then 31 zero bytes), of small order.',
    reason: 'bad_key',
    where: room,
    make: (ctx) => inRoom(ctx, roomOf({ ...ORIGIN_ROOM_FIELDS, authority: IDENTITY_POINT }, null)),
  },
  {
    name: 'refuse/room/invalid-name-65-bytes',
    note: 'A name of 65 bytes (at most 64).',
    reason: 'room_invalid',
    where: room,
    make: (ctx) =>
      inRoom(ctx, roomOf({ ...ORIGIN_ROOM_FIELDS, name: 'n'.repeat(65) }, ORIGIN.authority.secret)),
  },
  {
    name: 'refuse/room/bad-signature',
    note: "One bit of the descriptor's signature flipped.",
    reason: 'bad_signature',
    where: room,
    make: (ctx) =>
      base(ctx, { room: flip(ctx.env(ONE_CLASS).room, sigOffset(ctx.env(ONE_CLASS).room) + 40) }),
  },
  {
    name: 'refuse/room/key-log-missing',
    note: 'The room names an origin and no head is given.',
    reason: 'key_log_missing',
    where: room,
    make: (ctx) => base(ctx, { keyLog: null }),
  },
  {
    name: 'refuse/room/key-log-truncated',
    note: 'The head cut inside its entries.',
    reason: 'truncated',
    where: room,
    make: (ctx) => base(ctx, { keyLog: ctx.env(ONE_CLASS).keyLog!.slice(0, 120) }),
  },
  {
    name: 'refuse/room/key-log-malformed',
    note: "A head whose magic is a policy's.",
    reason: 'malformed',
    where: room,
    make: (ctx) =>
      base(ctx, {
        keyLog: concat(new TextEncoder().encode('WSP1'), ctx.env(ONE_CLASS).keyLog!.slice(4)),
      }),
  },
  {
    name: 'refuse/room/key-log-unknown-version',
    note: 'A head of version 2, signed by the origin.',
    reason: 'unknown_version',
    where: room,
    make: (ctx) => {
      const body = keyLogOf(headFields(ctx), null);
      return base(ctx, {
        keyLog: seal('WKL1', patch(body.subarray(0, body.length - 64), 4, 2), ORIGIN.origin.secret),
      });
    },
  },
  {
    name: 'refuse/room/key-log-invalid-order',
    note: 'Entries not in ascending order of key (reversed), signed by the origin.',
    reason: 'key_log_invalid',
    where: room,
    make: (ctx) =>
      withHead(
        ctx,
        { ...headFields(ctx), entries: headFields(ctx).entries.slice().reverse() },
        ORIGIN.origin.secret,
      ),
  },
  {
    name: 'refuse/room/key-log-invalid-prev',
    note: 'seq 0 with a previous head named.',
    reason: 'key_log_invalid',
    where: room,
    make: (ctx) => withHead(ctx, { ...headFields(ctx), seq: 0n }, ORIGIN.origin.secret),
  },
  {
    name: 'refuse/room/key-log-invalid-status',
    note: 'An entry of status 3.',
    reason: 'key_log_invalid',
    where: room,
    make: (ctx) =>
      withHead(
        ctx,
        {
          ...headFields(ctx),
          entries: entriesWith(ctx, ORIGIN.steer.pub, (e) => ({ ...e, status: 3 })),
        },
        ORIGIN.origin.secret,
      ),
  },
  {
    name: 'refuse/room/key-log-invalid-may-sign-order',
    note: "The steering key's authorities not in ascending order.",
    reason: 'key_log_invalid',
    where: room,
    make: (ctx) =>
      withHead(
        ctx,
        {
          ...headFields(ctx),
          entries: entriesWith(ctx, ORIGIN.steer.pub, (e) => ({
            ...e,
            may_sign: e.may_sign.slice().reverse(),
          })),
        },
        ORIGIN.origin.secret,
      ),
  },
  {
    name: 'refuse/room/key-log-bad-key',
    note: "The head's origin is the identity point: its signature is checked with its own origin first (C9).",
    reason: 'bad_key',
    where: room,
    make: (ctx) => withHead(ctx, { ...headFields(ctx), origin: IDENTITY_POINT }, null),
  },
  {
    name: 'refuse/room/key-log-bad-signature',
    note: "One bit of the head's signature flipped.",
    reason: 'bad_signature',
    where: room,
    make: (ctx) =>
      base(ctx, {
        keyLog: flip(ctx.env(ONE_CLASS).keyLog!, sigOffset(ctx.env(ONE_CLASS).keyLog!) + 40),
      }),
  },
  {
    name: 'refuse/room/key-log-mismatch',
    note: 'A head, well signed, of another origin.',
    reason: 'key_log_mismatch',
    where: room,
    make: (ctx) =>
      withHead(
        ctx,
        { ...headFields(ctx), origin: ORIGIN.otherOrigin.pub },
        ORIGIN.otherOrigin.secret,
      ),
  },
  {
    name: 'refuse/room/authority-not-listed',
    note: 'The head does not list the authority.',
    reason: 'authority_not_listed',
    where: room,
    make: (ctx) =>
      withHead(
        ctx,
        { ...headFields(ctx), entries: entriesWith(ctx, ORIGIN.authority.pub, () => null) },
        ORIGIN.origin.secret,
      ),
  },
  {
    name: 'refuse/room/authority-revoked-without-live-room',
    note: 'The authority listed revoked and without live/room: not listed (C9), not revoked.',
    reason: 'authority_not_listed',
    where: room,
    make: (ctx) =>
      withHead(
        ctx,
        {
          ...headFields(ctx),
          entries: entriesWith(ctx, ORIGIN.authority.pub, (e) => ({
            ...e,
            status: 2,
            may_sign: e.may_sign.filter((m) => m !== 'live/room'),
          })),
        },
        ORIGIN.origin.secret,
      ),
  },
  {
    name: 'refuse/room/authority-revoked',
    note: 'The authority listed with live/room, revoked.',
    reason: 'authority_revoked',
    where: room,
    make: (ctx) =>
      withHead(
        ctx,
        {
          ...headFields(ctx),
          entries: entriesWith(ctx, ORIGIN.authority.pub, (e) => ({ ...e, status: 2 })),
        },
        ORIGIN.origin.secret,
      ),
  },
];
