// The energy gauges' account kept period by period (`energy/kept.ts`, `EnergyService.keptAccount`):
// after the first, each account reads only the records of the periods settled since and the last
// window's again, no decision, and states what the account of the whole span from the store
// states but for the sessions placed.
import { type EnergyAccount, writeAccount } from '@wai-steering/energy';
import { afterEach, describe, expect, it } from 'vitest';
import { KeptPeriods } from '../../src/energy/kept.js';
import { type EnergyAnswer, EnergyService } from '../../src/energy/service.js';
import { demoApp, get, post } from '../helpers/setup.js';

const contexts: Awaited<ReturnType<typeof demoApp>>[] = [];
afterEach(async () => {
  for (const c of contexts.splice(0)) await c.close();
});

function accountOf(a: EnergyAnswer) {
  if (a.kind !== 'account') throw new Error(`no account: ${JSON.stringify(a)}`);
  return a.account;
}

/** An account as the gauges' states it: every figure but the sessions placed (no decision read). */
function unplaced(a: EnergyAccount): EnergyAccount {
  return { ...a, pathways: a.pathways.map((p) => ({ ...p, sessions_placed: null })) };
}

describe('the account kept period by period', () => {
  it('reads only the new periods and the last window again, and equals the whole span’s account', async () => {
    const ctx = await demoApp();
    contexts.push(ctx);
    const P = ctx.setup.policy.period_us;
    const W = ctx.engine.policy.window_us;
    const lag = ctx.engine.policy.lag_us;
    const T0 = ctx.clock.us;
    // Records of every hop for a period ending at `end`, and a few steering requests in it.
    const period = async (end: bigint, seed: number) => {
      ctx.clock.us = end - P / 2n;
      for (let i = 0; i < 3; i++) {
        expect((await get(ctx.app, '/steer')).status).toBe(200);
      }
      ctx.clock.us = end;
      for (const hop of ctx.setup.hops) {
        const res = await post(ctx.app, '/records', ctx.sim.record(hop, end - P, end, seed));
        expect([200, 201]).toContain(res.status);
      }
    };
    for (let k = 1n; k <= 20n; k++) await period(T0 + k * P, 100 + Number(k) * 7);
    ctx.clock.us += lag;
    // The records each account reads, counted at the store.
    let read = 0;
    const store = new Proxy(ctx.store, {
      get(target, name, receiver) {
        if (name === 'recordsOfHops') {
          return async (...args: Parameters<typeof target.recordsOfHops>) => {
            const got = await target.recordsOfHops(...args);
            read += got.length;
            return got;
          };
        }
        const v = Reflect.get(target, name, receiver);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    // And the decisions listed.
    let listed = 0;
    const engine = new Proxy(ctx.engine, {
      get(target, name, receiver) {
        if (name === 'listDecisions') {
          return (...args: Parameters<typeof target.listDecisions>) => {
            listed++;
            return target.listDecisions(...args);
          };
        }
        const v = Reflect.get(target, name, receiver);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    const energy = new EnergyService({ engine, store });
    const kept = new KeptPeriods();
    const first = accountOf(await energy.keptAccount(kept));
    expect(listed).toBe(0);
    expect(writeAccount(first)).toBe(
      writeAccount(unplaced(accountOf(await energy.account({ from: undefined, to: undefined })))),
    );
    expect(first.pathways.every((p) => p.sessions_placed === null)).toBe(true);
    expect(first.pathways.some((p) => p.periods > 0)).toBe(true);

    // Five more periods, and a record of an earlier period posted late (within the window).
    const T1 = T0 + 20n * P;
    for (let k = 1n; k <= 5n; k++) await period(T1 + k * P, 300 + Number(k) * 5);
    // A hop's second record of the last period the first account kept, posted late: its period
    // read again, the account changes as the whole span's does.
    const late = await post(
      ctx.app,
      '/records',
      ctx.sim.record(ctx.setup.hops[0]!, T1 - P, T1, 999),
    );
    expect(late.status).toBe(201);
    ctx.clock.us += lag;
    read = 0;
    listed = 0;
    const second = accountOf(await energy.keptAccount(kept));
    const readKept = read;
    expect(listed).toBe(0);
    read = 0;
    const whole = accountOf(await energy.account({ from: undefined, to: undefined }));
    expect(second.to).toBe(first.to + 5n * P);
    // The late record made its pathway's period unusable (two records of one hop overlap).
    const hop0 = ctx.engine.policy.pathways.findIndex((p) =>
      p.hops.some((h) => Buffer.from(h.key).equals(Buffer.from(ctx.setup.hops[0]!.key.publicKey))),
    );
    const thatPeriod = accountOf(await energy.account({ from: T1 - P, to: T1 }));
    expect(thatPeriod.pathways[hop0]!.periods).toBe(0);
    expect(first.pathways[hop0]!.periods).toBeGreaterThan(0);
    expect(writeAccount(second)).toBe(writeAccount(unplaced(whole)));
    // The whole span's account placed sessions: the decisions were there to read.
    expect(whole.pathways.some((p) => (p.sessions_placed ?? 0n) > 0n)).toBe(true);
    // Only the five new periods and the window's before them were read (a page's records past
    // `to` too), where the whole span's account read every record.
    const hops = BigInt(ctx.setup.hops.length);
    expect(BigInt(readKept)).toBeLessThanOrEqual(((5n * P + W) / P + 1n) * hops);
    expect(read).toBeGreaterThan(readKept);
    expect(kept.size).toBeGreaterThan(8000); // a day of 10-s periods
  });

  it('keeps nothing across a change of the timeline of policies: reads the whole span again', () => {
    const kept = new KeptPeriods();
    kept.reset('a');
    const facts = (from: bigint, n: number) =>
      Array.from({ length: n }, (_, i) => ({ start: from + BigInt(i) * 10n, pathways: [] }));
    kept.put(facts(0n, 5));
    expect(kept.covers(0n, 50n, 10n)).toBe(true);
    expect(kept.covers(0n, 60n, 10n)).toBe(false);
    // Read again from the fourth period: those from it replaced.
    kept.put(facts(30n, 4));
    expect(kept.size).toBe(7);
    expect(kept.end(10n)).toBe(70n);
    kept.dropBefore(20n);
    expect(kept.start).toBe(20n);
    expect(kept.within(30n, 50n).map((f) => f.start)).toEqual([30n, 40n]);
    // A gap is not covered.
    kept.put(facts(90n, 1));
    expect(kept.covers(20n, 100n, 10n)).toBe(false);
    kept.reset('b');
    expect(kept.size).toBe(0);
    expect(kept.key).toBe('b');
  });
});
