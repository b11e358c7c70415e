// The fast verifier (steps 4 and 5 held per window's evidence) against `verifyDecision` for every
// decision: the same verdicts on an honest log, and on copies with bytes changed anywhere.

import { nodeBackend } from '@wai-steering/wire/node';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DecisionVerifier } from '../src/index.js';
import { makeWorld, SimServer, sessionOf, T0 } from './helpers/world.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 150);

describe('the fast verifier', () => {
  const world = makeWorld(20);
  const sim = new SimServer(world);
  for (let i = 0; i < 60; i++) {
    sim.decide(T0 + BigInt(i) * 300_000n, sessionOf(i % 7), {
      pathway: i % 3,
      throughput: BigInt(500_000 + i * 100_000),
      buffer: BigInt(1000 + i * 500),
    });
  }
  const materials = (mode: 'fast' | 'reference', records = world.records) =>
    new DecisionVerifier({
      room: world.room,
      keyLog: world.keyLog,
      roomId: world.roomId,
      policies: [world.policy],
      records,
      backend: nodeBackend,
      mode,
    });

  it('gives verifyDecision’s verdicts on an honest log', () => {
    const fast = materials('fast');
    const reference = materials('reference');
    for (const m of sim.made) {
      const v = fast.verify(m.bytes);
      expect(v).toEqual(reference.verify(m.bytes));
      expect(v.accepted).toBe(true);
    }
  });

  it('gives verifyDecision’s verdicts on decisions with bytes changed, in any order', () => {
    const fast = materials('fast');
    const reference = materials('reference');
    fc.assert(
      fc.property(
        fc.nat(sim.made.length - 1),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), {
          minLength: 1,
          maxLength: 3,
        }),
        (k, flips) => {
          const b = sim.made[k]!.bytes.slice();
          for (const [at, x] of flips) b[at % b.length]! ^= x;
          expect(fast.verify(b)).toEqual(reference.verify(b));
          // An honest decision after it is still given its own verdict (nothing held wrongly).
          const next = sim.made[(k + 1) % sim.made.length]!.bytes;
          expect(fast.verify(next)).toEqual(reference.verify(next));
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('gives verifyDecision’s verdicts with records withheld or changed', () => {
    fc.assert(
      fc.property(fc.nat(world.records.length - 1), fc.nat(), fc.boolean(), (r, at, drop) => {
        const records = world.records.map((x) => x);
        if (drop) records.splice(r, 1);
        else {
          const b = records[r]!.slice();
          b[at % b.length]! ^= 0x10;
          records[r] = b;
        }
        const fast = materials('fast', records);
        const reference = materials('reference', records);
        for (const m of sim.made) expect(fast.verify(m.bytes)).toEqual(reference.verify(m.bytes));
      }),
      { numRuns: Math.max(10, Math.floor(RUNS / 10)) },
    );
  });
});

describe('verdicts packed for the trip from a worker', () => {
  it('unpack to the same verdicts, refusals and facts included', async () => {
    const { packVerdicts, unpackVerdicts } = await import('../src/internal/pack.js');
    const world = makeWorld(6);
    const sim = new SimServer(world);
    for (let i = 0; i < 12; i++) sim.decide(T0 + BigInt(i) * 200_000n, sessionOf(i % 5));
    const verifier = new DecisionVerifier({
      room: world.room,
      keyLog: world.keyLog,
      roomId: world.roomId,
      policies: [world.policy],
      records: world.records.slice(1),
      backend: nodeBackend,
    });
    const frames = sim.made.map((m) => m.bytes);
    frames.push(new Uint8Array([1, 2, 3]), frames[0]!.slice(0, 200));
    const verdicts = frames.map((f) => verifier.verify(f));
    expect(verdicts.some((v) => !v.accepted && v.facts !== undefined)).toBe(true);
    expect(verdicts.some((v) => v.facts === undefined)).toBe(true);
    const { buf, refused } = packVerdicts(verdicts);
    expect(unpackVerdicts(buf, refused, verdicts.length)).toEqual(verdicts);
  });
});
