// The findings an audit does not hold, kept in temporary files: read back as written, each kind
// apart, in chunks, and removed on dispose.
import { existsSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findingJson, type InconsistentLoad, type RefusedResult } from '../../../src/audit.js';
import { Spill } from '../../../src/node/internal/spill.js';

function refused(i: number): RefusedResult {
  return {
    digest: i.toString(16).padStart(64, '0'),
    reason: 'bad_signature',
    where: { at: 'decision' },
    t: String(i),
  };
}

function inconsistent(i: number): InconsistentLoad {
  return {
    digest: i.toString(16).padStart(64, '0'),
    pathway: 'cdn-a',
    stated: i,
    replayed: i + 3,
    t: String(i),
  };
}

/** The spill's temporary directory, once made. */
function dirOf(spill: Spill): string | undefined {
  return (spill as unknown as { dir: string | undefined }).dir;
}

describe('Spill', () => {
  it('gives each kind back as written, a comma before each, over several chunks', () => {
    const spill = new Spill();
    // About 180 bytes each: 20 000 of them are several chunks of 1 MiB.
    const n = 20_000;
    for (let i = 0; i < n; i++) spill.refused(refused(i));
    spill.inconsistent(inconsistent(7));
    const made = dirOf(spill)!;
    expect(readdirSync(made).sort()).toEqual(['inconsistent', 'refused']);
    const chunks = [...spill.chunks('refused')];
    expect(chunks.length).toBeGreaterThan(1);
    const expected = Array.from({ length: n }, (_, i) => `,${findingJson(refused(i))}`).join('');
    expect(chunks.join('')).toEqual(expected);
    expect(JSON.parse(`[${chunks.join('').slice(1)}]`)).toHaveLength(n);
    expect([...spill.chunks('inconsistent')].join('')).toEqual(`,${findingJson(inconsistent(7))}`);
    // Read again, the same.
    expect([...spill.chunks('refused')].join('')).toEqual(expected);
    spill.dispose();
    expect(existsSync(made)).toEqual(false);
    spill.dispose();
  });

  it('makes no directory when nothing is spilled, and gives nothing', () => {
    const spill = new Spill();
    expect([...spill.chunks('refused')]).toEqual([]);
    expect(dirOf(spill)).toEqual(undefined);
    spill.dispose();
  });
});
