// RFC 8785 (JCS): the examples of the RFC (§3.2.2, §3.2.3 and Appendix B's numbers) as written
// there, and agreement with the `canonicalize` package on random JSON values.
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, type JsonValue, parseStrictJson } from '../src/index.js';

function canon(text: string): string {
  const v = parseStrictJson(text);
  if (!v.ok) throw v.refusal;
  return canonicalJson(v.value);
}

describe('RFC 8785', () => {
  it('§3.2.2: the sample of primitive data types', () => {
    const input = String.raw`{
      "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
      "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
      "literals": [null, true, false]
    }`;
    expect(canon(input)).toBe(
      String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`,
    );
  });

  it('§3.2.3: members sorted by UTF-16 code units', () => {
    const input = String.raw`{
      "\u20ac": "Euro Sign",
      "\r": "Carriage Return",
      "\ufb33": "Hebrew Letter Dalet With Dagesh",
      "1": "One",
      "\ud83d\ude00": "Emoji: Grinning Face",
      "\u0080": "Control",
      "\u00f6": "Latin Small Letter O With Diaeresis"
    }`;
    expect(canon(input)).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  it('Appendix B: each IEEE 754 value written as the RFC lists it, NaN and infinities refused', () => {
    const samples: [string, string][] = [
      ['0000000000000000', '0'],
      ['8000000000000000', '0'],
      ['0000000000000001', '5e-324'],
      ['8000000000000001', '-5e-324'],
      ['7fefffffffffffff', '1.7976931348623157e+308'],
      ['ffefffffffffffff', '-1.7976931348623157e+308'],
      ['4340000000000000', '9007199254740992'],
      ['c340000000000000', '-9007199254740992'],
      ['4430000000000000', '295147905179352830000'],
      ['44b52d02c7e14af5', '9.999999999999997e+22'],
      ['44b52d02c7e14af6', '1e+23'],
      ['44b52d02c7e14af7', '1.0000000000000001e+23'],
      ['444b1ae4d6e2ef4e', '999999999999999700000'],
      ['444b1ae4d6e2ef4f', '999999999999999900000'],
      ['444b1ae4d6e2ef50', '1e+21'],
      ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
      ['3eb0c6f7a0b5ed8d', '0.000001'],
      ['41b3de4355555553', '333333333.3333332'],
      ['41b3de4355555554', '333333333.33333325'],
      ['41b3de4355555555', '333333333.3333333'],
      ['41b3de4355555556', '333333333.3333334'],
      ['41b3de4355555557', '333333333.33333343'],
      ['becbf647612f3696', '-0.0000033333333333333333'],
      ['43143ff3c1cb0959', '1424953923781206.2'],
    ];
    const dv = new DataView(new ArrayBuffer(8));
    for (const [hex, want] of samples) {
      dv.setBigUint64(0, BigInt(`0x${hex}`));
      expect(canonicalJson(dv.getFloat64(0)), hex).toBe(want);
    }
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      expect(() => canonicalJson(bad)).toThrow(TypeError);
    }
  });

  it('refuses a lone surrogate, and what is not a JSON value', () => {
    expect(() => canonicalJson('\ud800')).toThrow(TypeError);
    expect(() => canonicalJson({ '\udc00': 1 })).toThrow(TypeError);
    expect(() => canonicalJson(1n as unknown as JsonValue)).toThrow(TypeError);
    expect(() => canonicalJson([undefined] as unknown as JsonValue)).toThrow(TypeError);
    expect(() => canonicalJson(new Date(0) as unknown as JsonValue)).toThrow(TypeError);
  });
});

describe('canonicalJson', () => {
  it('writes what the `canonicalize` package writes, for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue({ noUnicodeString: false }), (v) => {
        expect(canonicalJson(v as JsonValue)).toBe(canonicalize(v));
      }),
      { numRuns: 1000 },
    );
  });

  it('writes one text for a value whatever the order of its members', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (o) => {
        const reversed = Object.fromEntries(Object.entries(o).reverse());
        expect(canonicalJson(reversed as JsonValue)).toBe(canonicalJson(o as JsonValue));
      }),
    );
  });
});

describe('nesting', () => {
  it('writes 64 nested arrays, as the reader reads them, and refuses 65', () => {
    const nest = (n: number): JsonValue => (n === 0 ? [] : [nest(n - 1)]);
    expect(canonicalJson(nest(63))).toBe(`${'['.repeat(64)}${']'.repeat(64)}`);
    expect(() => canonicalJson(nest(64))).toThrow(TypeError);
  });
});
