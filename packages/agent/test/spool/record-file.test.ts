import { describe, expect, it } from 'vitest';
import { signPeriod } from '../../src/agent/record.js';
import { emptyTraffic, modelSource } from '../../src/index.js';
import {
  endOfRecord,
  readRecordFile,
  recordFileName,
  recordFileProblem,
} from '../../src/spool/record-file.js';
import { B0, P } from '../helpers/rig.js';
import { makeRoom } from '../helpers/room.js';

const room = makeRoom([
  ['energy/ModelBased', 'live/hop'],
  ['energy/ModelBased', 'live/hop'],
]);
const other = makeRoom([['energy/ModelBased', 'live/hop']]);
const energy = modelSource({ idleWatts: 1, nanojoulesPerByte: 0 });
const span = { start: B0, end: B0 + P };
const rec = signPeriod(
  { room: room.roomId, key: room.hops[0]!, energy },
  {
    span,
    traffic: emptyTraffic(),
  },
);
const checks = { room: room.roomId, hop: room.hops[0]!.publicKey };

describe('a record file', () => {
  it("reads when its bytes are this hop's record, of this room, of the span and digest its name says", () => {
    expect(recordFileProblem(rec.name, rec.bytes, checks)).toBeUndefined();
    expect(readRecordFile(rec.name, rec.bytes, checks)).toEqual({
      name: rec.name,
      start: span.start,
      end: span.end,
      bytes: rec.bytes,
    });
    expect(endOfRecord(rec.bytes)).toBe(span.end);
  });

  it('does not read, and says why', () => {
    const cut = rec.bytes.subarray(0, 100);
    const bad = new Uint8Array(rec.bytes);
    bad[bad.length - 1]! ^= 1;
    const another = signPeriod(
      { room: room.roomId, key: room.hops[1]!, energy },
      {
        span,
        traffic: emptyTraffic(),
      },
    );
    const elsewhere = signPeriod(
      { room: other.roomId, key: room.hops[0]!, energy },
      {
        span,
        traffic: emptyTraffic(),
      },
    );
    const cases: [string, Uint8Array, string][] = [
      ['notes.txt', rec.bytes, 'its name is not <start>-<digest>.wmh'],
      [rec.name, cut, 'does not read as a per-hop record: truncated at joules'],
      [recordFileName(B0 + P, rec.digest), rec.bytes, 'its start is not the one its name says'],
      [recordFileName(B0, another.digest), rec.bytes, 'its digest is not the one its name says'],
      [
        another.name,
        another.bytes,
        `a record of another hop (${Buffer.from(room.hops[1]!.publicKey).toString('hex')})`,
      ],
      [elsewhere.name, elsewhere.bytes, 'does not verify: wrong_room'],
      [rec.name, bad, 'does not verify: bad_signature'],
    ];
    for (const [name, bytes, why] of cases) {
      expect(recordFileProblem(name, bytes, checks), why).toBe(why);
      expect(readRecordFile(name, bytes, checks), why).toBe(why);
    }
  });

  it('without a hop or room to check, any hop and room reads', () => {
    const anyRoom = new Uint8Array(32).fill(7);
    const any = signPeriod(
      { room: anyRoom, key: room.hops[1]!, energy },
      {
        span,
        traffic: emptyTraffic(),
      },
    );
    expect(recordFileProblem(any.name, any.bytes)).toBeUndefined();
    expect(recordFileProblem(any.name, any.bytes, checks)).toBe(
      `a record of another hop (${Buffer.from(room.hops[1]!.publicKey).toString('hex')})`,
    );
  });

  it('the end of bytes too short to hold one: none', () => {
    expect(endOfRecord(rec.bytes.subarray(0, 84))).toBeUndefined();
    expect(endOfRecord(rec.bytes.subarray(0, 85))).toBe(span.end);
  });
});
