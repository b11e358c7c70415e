import { createHash } from 'node:crypto';
import { type KeyLogEntry, signKeyLog, signRoom, toHex } from '@wai-steering/wire';
import { describe, expect, it } from 'vitest';
import { checkHopAuthorised, checkSigner, openRoom, type RoomContext } from '../src/index.js';
import { keys, makeRoom, pub, secret } from './helpers/world.js';

const ENERGY = ['energy/CalibratedInstrument', 'energy/Estimator', 'energy/ModelBased'];
const byKey = (x: KeyLogEntry, y: KeyLogEntry) =>
  Buffer.compare(Buffer.from(x.key), Buffer.from(y.key));

/** A room with an origin, and a head of the entries given (signed by `originKey`). */
function roomWith(entries: KeyLogEntry[], originKey: Uint8Array = keys.origin) {
  const room = signRoom(
    { authority: pub(keys.authority), origin: pub(keys.origin), name: 'room test' },
    keys.authority,
  );
  const keyLog = signKeyLog(
    {
      origin: pub(originKey),
      seq: 0n,
      prev: new Uint8Array(32),
      entries: [...entries].sort(byKey),
    },
    originKey,
  );
  return { room, keyLog };
}

const entry = (sk: Uint8Array, maySign: string[], status = 1): KeyLogEntry => ({
  key: pub(sk),
  status,
  may_sign: [...maySign].sort(),
});

function opened(bytes: { room: Uint8Array; keyLog: Uint8Array | null }): RoomContext {
  const r = openRoom(bytes.room, bytes.keyLog);
  if (!r.ok) throw r.refusal;
  return r.value;
}

function refusalOf(r: ReturnType<typeof openRoom>) {
  if (r.ok) throw new Error('expected a refusal');
  return { reason: r.refusal.reason, at: r.refusal.where.at };
}

describe('openRoom (§9.1 step 1, C6)', () => {
  it("opens a room with its head: the id is SHA-256 of the bytes before sig, the head's entries by key", () => {
    const { room, keyLog } = makeRoom();
    const ctx = opened({ room, keyLog });
    const expected = createHash('sha256')
      .update(room.subarray(0, room.length - 64))
      .digest();
    expect(toHex(ctx.roomId)).toBe(expected.toString('hex'));
    expect(ctx.keyLog).toBeDefined();
    expect(ctx.entries.size).toBe(2 + keys.hops.length);
    expect(ctx.entries.get(toHex(pub(keys.steer)))?.may_sign).toContain('live/steer');
  });

  it('refuses a room whose head is missing as key_log_missing, at room', () => {
    const { room } = makeRoom();
    expect(refusalOf(openRoom(room, null))).toEqual({ reason: 'key_log_missing', at: 'room' });
    expect(refusalOf(openRoom(room, undefined)).reason).toBe('key_log_missing');
  });

  it('refuses a descriptor that does not read, or whose signature does not verify', () => {
    const { room, keyLog } = makeRoom();
    expect(refusalOf(openRoom(room.subarray(0, 3), keyLog))).toEqual({
      reason: 'truncated',
      at: 'room',
    });
    const flipped = room.slice();
    flipped[flipped.length - 40]! ^= 1;
    expect(refusalOf(openRoom(flipped, keyLog))).toEqual({ reason: 'bad_signature', at: 'room' });
  });

  it('refuses a head of another origin as key_log_mismatch, and a head that does not read', () => {
    const listed = [entry(keys.authority, ['live/room'])];
    const other = roomWith(listed, secret('another origin'));
    expect(refusalOf(openRoom(other.room, other.keyLog))).toEqual({
      reason: 'key_log_mismatch',
      at: 'room',
    });
    const { room } = makeRoom();
    expect(refusalOf(openRoom(room, new Uint8Array([1, 2, 3]))).at).toBe('room');
  });

  it('refuses an authority missing from the head, or listed without live/room, as authority_not_listed', () => {
    const missing = roomWith([entry(keys.steer, ['live/steer'])]);
    expect(refusalOf(openRoom(missing.room, missing.keyLog)).reason).toBe('authority_not_listed');
    const without = roomWith([entry(keys.authority, ['live/steer'])]);
    expect(refusalOf(openRoom(without.room, without.keyLog)).reason).toBe('authority_not_listed');
    // C9: without live/room it is not listed, even when also revoked.
    const both = roomWith([entry(keys.authority, ['live/steer'], 2)]);
    expect(refusalOf(openRoom(both.room, both.keyLog)).reason).toBe('authority_not_listed');
  });

  it('refuses a revoked authority as authority_revoked', () => {
    const revoked = roomWith([entry(keys.authority, ['live/room'], 2)]);
    expect(refusalOf(openRoom(revoked.room, revoked.keyLog))).toEqual({
      reason: 'authority_revoked',
      at: 'room',
    });
  });

  it('opens a room that names no origin without reading the head given', () => {
    const room = signRoom(
      { authority: pub(keys.authority), origin: new Uint8Array(32), name: 'solo' },
      keys.authority,
    );
    const ctx = opened({ room, keyLog: new Uint8Array([9, 9, 9]) });
    expect(ctx.keyLog).toBeUndefined();
    expect(ctx.entries.size).toBe(0);
  });
});

describe('checkSigner (§3.5, C6)', () => {
  const ctx = opened(
    roomWith([
      entry(keys.authority, ['live/room', ...ENERGY]),
      entry(keys.steer, ['live/steer', 'energy/OnChipCounter']),
      entry(keys.hops[0]!, ['live/hop', 'energy/OnChipCounter']),
      entry(keys.hops[1]!, ['live/steer', 'energy/OnChipCounter'], 2),
    ]),
  );

  it('lets a listed live/steer key sign, for the classes it holds', () => {
    expect(checkSigner(ctx, pub(keys.steer))).toBeUndefined();
    expect(checkSigner(ctx, pub(keys.steer), [4])).toBeUndefined();
  });

  it('refuses a class the signer does not hold, an unlisted key and a key without live/steer', () => {
    expect(checkSigner(ctx, pub(keys.steer), [4, 5])?.reason).toBe('signer_not_authorised');
    expect(checkSigner(ctx, pub(secret('stranger')))?.reason).toBe('signer_not_authorised');
    expect(checkSigner(ctx, pub(keys.hops[0]!))?.reason).toBe('signer_not_authorised');
  });

  it('refuses a revoked key as signer_revoked, whatever it may sign', () => {
    expect(checkSigner(ctx, pub(keys.hops[1]!))?.reason).toBe('signer_revoked');
  });

  it('lets the authority sign without live/steer, but not for a class it does not hold', () => {
    expect(checkSigner(ctx, pub(keys.authority), [5, 3, 2])).toBeUndefined();
    expect(checkSigner(ctx, pub(keys.authority), [4])?.reason).toBe('signer_not_authorised');
  });

  it('in a room without origin, lets only the authority sign', () => {
    const room = signRoom(
      { authority: pub(keys.authority), origin: new Uint8Array(32), name: 'solo' },
      keys.authority,
    );
    const solo = opened({ room, keyLog: null });
    expect(checkSigner(solo, pub(keys.authority), [4])).toBeUndefined();
    expect(checkSigner(solo, pub(keys.steer))?.reason).toBe('signer_not_authorised');
  });
});

describe('checkHopAuthorised (C5.4, C9)', () => {
  const ctx = opened(
    roomWith([
      entry(keys.authority, ['live/room']),
      entry(keys.steer, ['live/steer', 'energy/OnChipCounter']),
      entry(keys.hops[0]!, ['live/hop', 'energy/OnChipCounter']),
      entry(keys.hops[1]!, ['live/hop', 'energy/OnChipCounter'], 2),
    ]),
  );
  const hop = (sk: Uint8Array, cls: number) =>
    checkHopAuthorised(ctx, { hop: pub(sk), class: cls });

  it('lets a listed live/hop key sign a record of a class it holds, and an unmetered one', () => {
    expect(hop(keys.hops[0]!, 4)).toBeUndefined();
    expect(hop(keys.hops[0]!, 0)).toBeUndefined();
  });

  it('refuses, in order: unlisted, revoked, without live/hop, without the class', () => {
    expect(hop(secret('stranger'), 4)?.where.field).toBe('hop');
    expect(hop(secret('stranger'), 4)?.reason).toBe('hop_not_authorised');
    expect(hop(keys.hops[1]!, 9)?.reason).toBe('hop_revoked');
    expect(hop(keys.steer, 4)?.reason).toBe('hop_not_authorised');
    const cls = hop(keys.hops[0]!, 5);
    expect(cls?.reason).toBe('hop_not_authorised');
    expect(cls?.where.field).toBe('class');
  });

  it('in a room without origin, takes records of the authority only', () => {
    const room = signRoom(
      { authority: pub(keys.authority), origin: new Uint8Array(32), name: 'solo' },
      keys.authority,
    );
    const solo = opened({ room, keyLog: null });
    expect(checkHopAuthorised(solo, { hop: pub(keys.authority), class: 4 })).toBeUndefined();
    expect(checkHopAuthorised(solo, { hop: pub(keys.hops[0]!), class: 4 })?.reason).toBe(
      'hop_not_authorised',
    );
  });
});
