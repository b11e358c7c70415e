import { openHopRecord } from '@wai-steering/verifier';
import { CLASS, toHex, unwrap } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { describe, expect, it } from 'vitest';
import { signPeriod } from '../../src/agent/record.js';
import {
  type EnergySource,
  emptyTraffic,
  modelSource,
  raplSource,
  type Traffic,
  unmetered,
} from '../../src/index.js';
import { B0, counterTree, P } from '../helpers/rig.js';
import { makeRoom } from '../helpers/room.js';

const room = makeRoom([['energy/ModelBased', 'energy/OnChipCounter', 'live/hop']]);
const span = { start: B0, end: B0 + P };
const traffic: Traffic = {
  sessions: 3,
  subscriber_us: [0n, 0n, 2_000_000n, 0n, 0n, 0n, 0n, 0n],
  tracks: [
    { track: 1, kind: 1, direction: 1, bytes: 999n },
    { track: 1, kind: 1, direction: 2, bytes: 10_000n },
  ],
};
const signer = (energy: EnergySource) => ({ room: room.roomId, key: room.hops[0]!, energy });

describe("a period's record", () => {
  it('a model states the span from the bytes sent out, in its class', () => {
    const rec = signPeriod(signer(modelSource({ idleWatts: '35.5', nanojoulesPerByte: 62 })), {
      span,
      traffic,
    });
    // 35.5 W over 1 s, and 62 nJ for each of the 10 000 bytes out: 35 500 000 + 620 µJ.
    expect(rec.fields).toMatchObject({ class: CLASS.ModelBased, joules: 35_500_620n });
    expect(rec.fields).toMatchObject({ sessions: 3, tracks: traffic.tracks });
    expect(rec.fields.subscriber_us).toEqual(traffic.subscriber_us);
    expect([rec.unmetered, rec.trafficUnknown]).toEqual([undefined, undefined]);
  });

  it('a counter states what its readings counted; with no count, the unmetered marker', () => {
    const counter = signer(raplSource({ root: counterTree().root }));
    expect(signPeriod(counter, { span, traffic, counted: 777n }).fields).toMatchObject({
      class: CLASS.OnChipCounter,
      joules: 777n,
    });
    expect(signPeriod(counter, { span, traffic }).fields).toMatchObject({ class: 0, joules: 0n });
  });

  it('a period that cannot be stated: the unmetered marker with the reason, and its traffic', () => {
    for (const energy of [
      modelSource({ idleWatts: 10, nanojoulesPerByte: 1 }),
      raplSource({ root: counterTree().root }),
    ]) {
      const rec = signPeriod(signer(energy), { span, traffic, counted: 5n, why: 'a reason' });
      expect(rec.fields).toMatchObject({ class: 0, joules: 0n, tracks: traffic.tracks });
      expect(rec.unmetered).toBe('a reason');
    }
    const unknown = signPeriod(signer(modelSource({ idleWatts: 1, nanojoulesPerByte: 1 })), {
      span,
      traffic: emptyTraffic(),
      why: 'traffic unknown: lost',
      trafficUnknown: 'traffic unknown: lost',
    });
    expect([unknown.fields.class, unknown.unmetered, unknown.trafficUnknown]).toEqual([
      0,
      'traffic unknown: lost',
      'traffic unknown: lost',
    ]);
  });

  it('no energy source: class 0, which is no fault to report', () => {
    const rec = signPeriod(signer(unmetered()), { span, traffic });
    expect([rec.fields.class, rec.fields.joules, rec.unmetered]).toEqual([0, 0n, undefined]);
  });

  it('opens in the room as a server opens it; its digest (C1) names its spool file', () => {
    const rec = signPeriod(signer(modelSource({ idleWatts: 1, nanojoulesPerByte: 0 })), {
      span,
      traffic,
    });
    const opened = unwrap(openHopRecord(room.ctx, rec.bytes, { backend: nodeBackend }));
    expect(toHex(opened.digest)).toBe(rec.digest);
    expect(opened.record).toMatchObject({ start: span.start, end: span.end, joules: 1_000_000n });
    expect(rec.name).toBe(`${String(B0).padStart(20, '0')}-${rec.digest}.wmh`);
    expect(rec.span).toEqual(span);
  });

  it('states at most 2^32 − 1 sessions', () => {
    const many = { ...traffic, sessions: 2 ** 33 };
    const rec = signPeriod(signer(unmetered()), { span, traffic: many });
    expect(rec.fields.sessions).toBe(0xffff_ffff);
  });
});
