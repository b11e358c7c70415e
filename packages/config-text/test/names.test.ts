import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Alias, closestName, didYouMean, editDistance, renameAliases } from '../src/names.js';

/** Levenshtein's distance with swaps, by the plain recursion (the oracle: slow, obviously right). */
function slowDistance(a: string, b: string): number {
  const memo = new Map<string, number>();
  const go = (i: number, j: number): number => {
    if (i === 0) return j;
    if (j === 0) return i;
    const key = `${i},${j}`;
    const hit = memo.get(key);
    if (hit !== undefined) return hit;
    let v = Math.min(
      go(i - 1, j) + 1,
      go(i, j - 1) + 1,
      go(i - 1, j - 1) + (a[i - 1] === b[j - 1] ? 0 : 1),
    );
    if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
      v = Math.min(v, go(i - 2, j - 2) + 1);
    }
    memo.set(key, v);
    return v;
  };
  return go(a.length, b.length);
}

describe('editDistance', () => {
  it('counts insertions, deletions, substitutions and swaps of neighbours', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('same', 'same')).toBe(0);
    expect(editDistance('prot', 'port')).toBe(1);
    expect(editDistance('ca', 'abc')).toBe(3); // optimal string alignment, not Damerau's 2
  });

  it('is the recursion, symmetric, zero only between equal words (property)', () => {
    const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c', '_'), maxLength: 8 });
    fc.assert(
      fc.property(word, word, (a, b) => {
        const d = editDistance(a, b);
        expect(d).toBe(slowDistance(a, b));
        expect(editDistance(b, a)).toBe(d);
        expect(d === 0).toBe(a === b);
        expect(d).toBeLessThanOrEqual(Math.max(a.length, b.length));
      }),
      { numRuns: 500 },
    );
  });
});

describe('closestName and didYouMean', () => {
  it('name the known word a misspelt one is close to, and nothing when none is', () => {
    expect(closestName('keylog', ['key_log', 'policy'])).toBe('key_log');
    expect(closestName('hysterisis', ['hysteresis', 'ttl'])).toBe('hysteresis');
    expect(closestName('colour', ['room', 'policy', 'store'])).toBeUndefined();
    expect(closestName('Public-URL', ['public_url', 'room'])).toBe('public_url');
    expect(closestName('x', [])).toBeUndefined();
    expect(didYouMean('prot', ['port', 'host'])).toBe(' (did you mean "port"?)');
    expect(didYouMean('colour', ['room'])).toBe('');
  });

  it('suggests a known word only within a third of the length, at most 3 edits (property)', () => {
    const word = fc.string({
      unit: fc.constantFrom('a', 'b', 'c', 'd'),
      minLength: 1,
      maxLength: 9,
    });
    fc.assert(
      fc.property(word, fc.array(word, { maxLength: 5 }), (w, known) => {
        const near = closestName(w, known);
        if (near === undefined) {
          const limit = Math.min(3, Math.max(1, Math.floor(w.length / 3)));
          for (const k of known) expect(editDistance(w, k)).toBeGreaterThan(limit);
        } else {
          expect(known).toContain(near);
          for (const k of known)
            expect(editDistance(w, near)).toBeLessThanOrEqual(editDistance(w, k));
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('renameAliases', () => {
  const ALIASES: readonly Alias[] = [
    ['', 'keyLog', 'key_log'],
    ['energy', 'idleWatts', 'idle_watts'],
  ];

  it('reads an old spelling under its new name, with a warning, leaving the input unchanged', () => {
    const input = { keyLog: 'k.wkl', energy: { idleWatts: 40, source: 'model' } };
    const copy = JSON.parse(JSON.stringify(input)) as unknown;
    expect(renameAliases(input, ALIASES)).toEqual({
      input: { key_log: 'k.wkl', energy: { idle_watts: 40, source: 'model' } },
      warnings: [
        'keyLog is the old spelling of key_log: read this release, not the next (rename it)',
        'energy.idleWatts is the old spelling of energy.idle_watts: read this release, not the next (rename it)',
      ],
      issues: [],
    });
    expect(input).toEqual(copy);
  });

  it('refuses both spellings of one field, keeping the new', () => {
    expect(renameAliases({ keyLog: 'a', key_log: 'b' }, ALIASES)).toEqual({
      input: { key_log: 'b' },
      warnings: [],
      issues: ['keyLog: given with key_log, its new spelling: keep one'],
    });
  });

  it('leaves what is not a mapping, and an alias `applies` refuses, as they are', () => {
    expect(renameAliases([1], ALIASES)).toEqual({ input: [1], warnings: [], issues: [] });
    expect(renameAliases({ energy: 3 }, ALIASES)).toEqual({
      input: { energy: 3 },
      warnings: [],
      issues: [],
    });
    const applies = (at: string) => at === '';
    expect(renameAliases({ energy: { idleWatts: 1 } }, ALIASES, applies)).toEqual({
      input: { energy: { idleWatts: 1 } },
      warnings: [],
      issues: [],
    });
  });
});
