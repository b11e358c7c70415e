// The strict JSON reader: what JSON.parse reads, it reads the same, except two members of one
// name, a lone surrogate and a number beyond float64, each refused where it stands.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseStrictJson } from '../src/index.js';

describe('parseStrictJson', () => {
  it('reads what JSON.stringify writes as JSON.parse reads it', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.boolean(), (v, pretty) => {
        const text = JSON.stringify(v, null, pretty ? 2 : undefined);
        const r = parseStrictJson(text);
        expect(r.ok && r.value).toEqual(JSON.parse(text));
      }),
      { numRuns: 1000 },
    );
  });

  it('refuses two members of one name, at the member’s JSON pointer', () => {
    const r = parseStrictJson('{"a":{"b/c":1,"b/c":2}}');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.refusal.reason).toBe('duplicate_member');
    expect(r.refusal.where).toEqual({ what: 'json', offset: 14, pointer: '/a/b~1c' });
    // The same name written two ways is the same name.
    const escaped = parseStrictJson('{"ab":1,"\\u0061b":2}');
    expect(!escaped.ok && escaped.refusal.reason).toBe('duplicate_member');
  });

  it('keeps a member named __proto__ as a member', () => {
    const r = parseStrictJson('{"__proto__":{"x":1}}');
    expect(r.ok && Object.keys(r.value as object)).toEqual(['__proto__']);
    expect(r.ok && Object.getPrototypeOf(r.value)).toBe(Object.prototype);
  });

  it('refuses text that is not JSON, at the offset where it stops', () => {
    const bad: [string, number][] = [
      ['', 0],
      ['{', 1],
      ['[1,]', 3],
      ['{"a" 1}', 5],
      ['01', 1],
      ['1 2', 2],
      ['"\\x"', 1],
      ['"a\u0001"', 2],
      ['"\\ud800"', 8],
      ['1e999', 0],
      ['nul', 0],
      ["{'a':1}", 1],
      ['[1]]', 3],
    ];
    for (const [text, offset] of bad) {
      const r = parseStrictJson(text);
      expect(r.ok, text).toBe(false);
      if (!r.ok)
        expect([r.refusal.reason, r.refusal.where.offset], text).toEqual(['malformed', offset]);
    }
    expect(parseStrictJson(`${'['.repeat(64)}${']'.repeat(64)}`).ok).toBe(true);
    expect(parseStrictJson(`${'['.repeat(65)}${']'.repeat(65)}`).ok).toBe(false);
  });
});
