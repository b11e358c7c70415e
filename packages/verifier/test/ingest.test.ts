import { createHash } from 'node:crypto';
import { nobleBackend, signHopRecord, toHex } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { describe, expect, it } from 'vitest';
import { openHopRecord, openRoom, type RoomContext } from '../src/index.js';
import { DEFAULT_PLAN, hopRecord, makeRoom, P, pub, secret, T0 } from './helpers/world.js';

const { room, keyLog, roomId } = makeRoom();
const opened = openRoom(room, keyLog);
if (!opened.ok) throw opened.refusal;
const ctx: RoomContext = opened.value;
const plan = DEFAULT_PLAN[0]![0]!;

function refusalOf(r: ReturnType<typeof openHopRecord>) {
  if (r.ok) throw new Error('expected a refusal');
  return r.refusal;
}

describe('openHopRecord (companion C5, on ingest)', () => {
  it('opens a record of the room: its fields, and its digest over the bytes before sig', () => {
    const bytes = hopRecord(roomId, 0, T0 - P, T0, plan);
    const r = openHopRecord(ctx, bytes);
    if (!r.ok) throw r.refusal;
    expect(r.value.record.joules).toBe(plan.joules);
    expect(r.value.record.end - r.value.record.start).toBe(P);
    const expected = createHash('sha256')
      .update(bytes.subarray(0, bytes.length - 64))
      .digest();
    expect(toHex(r.value.digest)).toBe(expected.toString('hex'));
  });

  it('gives the same digest on either backend', () => {
    const bytes = hopRecord(roomId, 1, T0 - P, T0, plan);
    const a = openHopRecord(ctx, bytes, { backend: nobleBackend });
    const b = openHopRecord(ctx, bytes, { backend: nodeBackend });
    if (!a.ok || !b.ok) throw new Error('expected both to open');
    expect(toHex(a.value.digest)).toBe(toHex(b.value.digest));
  });

  it('refuses bytes that do not read (C1) before anything else', () => {
    const bytes = hopRecord(roomId, 0, T0 - P, T0, plan);
    expect(refusalOf(openHopRecord(ctx, bytes.subarray(0, 10))).reason).toBe('truncated');
    expect(refusalOf(openHopRecord(ctx, new Uint8Array(0))).reason).toBe('truncated');
  });

  it('refuses a record of another room as wrong_room', () => {
    const other = new Uint8Array(32).fill(0x42);
    const bytes = hopRecord(other, 0, T0 - P, T0, plan);
    expect(refusalOf(openHopRecord(ctx, bytes)).reason).toBe('wrong_room');
  });

  it('refuses a record whose signature does not verify as bad_signature', () => {
    const bytes = hopRecord(roomId, 0, T0 - P, T0, plan);
    bytes[bytes.length - 1]! ^= 0x01;
    expect(refusalOf(openHopRecord(ctx, bytes)).reason).toBe('bad_signature');
  });

  it('refuses a record of a hop the head does not list as hop_not_authorised', () => {
    const stranger = secret('not in the key log');
    const bytes = signHopRecord(
      {
        room: roomId,
        hop: pub(stranger),
        start: T0 - P,
        end: T0,
        sessions: 1,
        class: 4,
        joules: 1n,
        subscriber_us: [0n, 0n, 0n, 0n, 0n, 0n, 0n, 0n],
        tracks: [],
      },
      stranger,
    );
    const refusal = refusalOf(openHopRecord(ctx, bytes));
    expect(refusal.reason).toBe('hop_not_authorised');
    expect(refusal.where.field).toBe('hop');
  });
});
