// The account's JSON (item 1g): exact integers as decimal strings, the rest as numbers, written
// canonically, and read back strictly to the same account.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  accountFromJson,
  accountJson,
  canonicalJson,
  type JsonValue,
  readAccount,
  writeAccount,
} from '../src/index.js';
import { energyAccountArb } from './helpers/arbitrary.js';

describe('the account as JSON', () => {
  it('round-trips: written canonically, read back, the same account', () => {
    fc.assert(
      fc.property(energyAccountArb, (a) => {
        const text = writeAccount(a);
        const read = readAccount(text);
        expect(read.ok).toBe(true);
        if (!read.ok) return;
        expect(accountFromJson(read.value)).toEqual({
          ...a,
          // −0 is written 0 (RFC 8785 §3.2.2.3).
          pathways: a.pathways.map((p) => ({
            ...p,
            r2: p.r2 === null ? null : p.r2 + 0,
            marginal_ci95_pj_per_unit:
              p.marginal_ci95_pj_per_unit === null
                ? null
                : [p.marginal_ci95_pj_per_unit[0] + 0, p.marginal_ci95_pj_per_unit[1] + 0],
          })),
          saved_marginal_ci95_uj:
            a.saved_marginal_ci95_uj === null
              ? null
              : [a.saved_marginal_ci95_uj[0] + 0, a.saved_marginal_ci95_uj[1] + 0],
        });
        // The text is the canonical text of what was read, and reading is not fooled by layout.
        expect(canonicalJson(read.value as unknown as JsonValue)).toBe(text);
        const pretty = JSON.stringify(JSON.parse(text), null, 2);
        const again = readAccount(pretty);
        expect(again.ok && canonicalJson(again.value as unknown as JsonValue)).toBe(text);
      }),
      { numRuns: 300 },
    );
  });

  it('writes exact integers as decimal strings and the counts and floats as numbers', () => {
    fc.assert(
      fc.property(energyAccountArb, (a) => {
        const j = accountJson(a);
        expect(typeof j.from).toBe('string');
        expect(typeof j.basis).toBe('number');
        for (const p of j.pathways) {
          expect([typeof p.joules_uj, typeof p.periods]).toEqual(['string', 'number']);
        }
      }),
      { numRuns: 50 },
    );
  });
});

describe('readAccount', () => {
  const sample = fc.sample(energyAccountArb, { numRuns: 1, seed: 7 })[0]!;
  const text = writeAccount({ ...sample, pathways: sample.pathways.slice(0, 1) });

  it('refuses a member given twice', () => {
    const twice = text.replace('{"baseline"', '{"to":"1","baseline"');
    const r = readAccount(twice);
    expect(!r.ok && [r.refusal.reason, r.refusal.where.pointer]).toEqual([
      'duplicate_member',
      '/to',
    ]);
  });

  it('refuses an account of another shape, at the member’s pointer', () => {
    const cases: [string, string][] = [
      [text.replace(/"from":"[0-9]+"/, '"from":12'), '/from'],
      [text.replace(/"from":"[0-9]+"/, '"from":"012"'), '/from'],
      [text.replace(/"basis":[12]/, '"basis":3'), '/basis'],
      [text.replace('"room":"', '"room":"A'), '/room'],
      [text.replace('{"baseline"', '{"extra":1,"baseline"'), '/extra'],
      [text.replace(/,"to":"[0-9]+"/, ''), '/to'],
      [text.replace('"why":"initial"', '"why":"steered"'), '/baseline/why'],
    ];
    for (const [bad, pointer] of cases) {
      const r = readAccount(bad);
      expect(!r.ok && [r.refusal.reason, r.refusal.where.pointer], bad).toEqual([
        'not_an_account',
        pointer,
      ]);
    }
    const r = readAccount('[1');
    expect(!r.ok && r.refusal.reason).toBe('malformed');
  });
});
