import type { DecisionFields } from '@wai-steering/wire';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { joinDecision, splitAgainst, splitDecision } from '../../src/store/compact.js';
import { fieldsArb, sign } from '../store-contract.js';

let cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup) c();
  cleanup = [];
});

describe('compact decisions', () => {
  it('split then join gives back the exact bytes', () => {
    fc.assert(
      fc.property(fieldsArb, (f) => {
        const { bytes: b } = sign(f as DecisionFields);
        const { set, tail } = splitDecision(b);
        expect(Buffer.from(joinDecision(set, tail)).equals(Buffer.from(b))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('cuts the tail in place and tells whether the set is the current one', () => {
    fc.assert(
      fc.property(fieldsArb, fieldsArb, (f, g) => {
        const a = sign(f as DecisionFields).bytes;
        const b = sign(g as DecisionFields).bytes;
        const scratch = new Uint8Array(a.length + b.length);
        const sa = splitDecision(a);
        const same = splitAgainst(a, sa.set, scratch);
        expect(same.set).toBeUndefined();
        expect(Buffer.from(scratch.subarray(0, same.tailLength)).equals(Buffer.from(sa.tail))).toBe(
          true,
        );
        const other = splitAgainst(b, sa.set, scratch);
        const sb = splitDecision(b);
        expect(
          Buffer.from(scratch.subarray(0, other.tailLength)).equals(Buffer.from(sb.tail)),
        ).toBe(true);
        const equalSets = Buffer.from(sa.set).equals(Buffer.from(sb.set));
        expect(other.set === undefined).toBe(equalSets);
        if (other.set !== undefined)
          expect(Buffer.from(other.set).equals(Buffer.from(sb.set))).toBe(true);
        expect(splitAgainst(b, undefined, scratch).set).toBeDefined();
      }),
      { numRuns: 300 },
    );
  });

  it('refuses bytes that are not a decision', () => {
    expect(() => splitDecision(new Uint8Array(10))).toThrow(RangeError);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (b) => {
        try {
          const { set, tail } = splitDecision(b);
          expect(Buffer.from(joinDecision(set, tail)).equals(Buffer.from(b))).toBe(true);
        } catch (e) {
          expect(e).toBeInstanceOf(RangeError);
        }
      }),
    );
  });
});
