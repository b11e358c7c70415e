import type { EvidenceRecord } from '@wai-steering/evidence';
import { describe, expect, it } from 'vitest';
import { explainHop } from '../../src/console/stale.js';

const P = 10n;
const rec = (start: bigint, end: bigint): EvidenceRecord =>
  ({ record: { start, end }, digest: new Uint8Array(32) }) as unknown as EvidenceRecord;
const W = { a: 100n, b: 160n };

describe('explainHop', () => {
  it('names the missing periods as runs', () => {
    const records = [rec(100n, 110n), rec(130n, 140n)];
    expect(explainHop(records, W, P)).toEqual([
      { kind: 'missing', start: 110n, end: 130n },
      { kind: 'missing', start: 140n, end: 160n },
    ]);
  });

  it('names overlaps and records off the grid or outside the window', () => {
    const records = [rec(95n, 105n), rec(100n, 120n), rec(110n, 130n), rec(130n, 160n)];
    const problems = explainHop(records, W, P);
    expect(problems).toContainEqual({ kind: 'not_tiling', start: 95n, end: 105n });
    expect(problems).toContainEqual({ kind: 'overlapping', start: 100n, end: 105n });
    expect(problems).toContainEqual({ kind: 'overlapping', start: 110n, end: 120n });
    expect(problems.filter((p) => p.kind === 'missing')).toEqual([]);
  });

  it('an empty window is missing', () => {
    expect(explainHop([], { a: 50n, b: 50n }, P)).toEqual([
      { kind: 'missing', start: 50n, end: 50n },
    ]);
  });

  it('a hop with no record is missing the whole window', () => {
    expect(explainHop([], W, P)).toEqual([{ kind: 'missing', start: 100n, end: 160n }]);
  });
});
