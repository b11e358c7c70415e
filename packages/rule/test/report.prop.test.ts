import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchPathway, readReport, reportJson } from '../src/report.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 2000);
const U64_MAX = (1n << 64n) - 1n;

const ids = fc.uniqueArray(fc.string({ maxLength: 6 }), { maxLength: 5 });
const piece = fc.constantFrom(
  '?',
  '#',
  '&',
  '=',
  ',',
  '"',
  '%',
  '%2',
  '%22',
  '%2C',
  '%3D',
  '%zz',
  '+',
  '_HLS_pathway=',
  '_HLS_throughput=',
  '_DASH_pathway=',
  '_DASH_throughput=',
  'CMCD=',
  'bl%3D',
  'mtp%3D',
  '(',
  ')',
  '-',
  '0',
  '18446744073709551616',
  '999999999999999',
  'a',
  'b',
  'é',
);
const target = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.array(fc.oneof(piece, fc.string({ maxLength: 3 })), { maxLength: 30 }).map((a) => a.join('')),
  fc.uint8Array({ maxLength: 80 }),
);
const headerValue = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc
    .array(
      fc.constantFrom('bl=', 'mtp=', '(', ')', ' ', '\t', ',', ';v', '1', '-0', '@1', ':aGk:', '"'),
      {
        maxLength: 16,
      },
    )
    .map((a) => a.join('')),
);
const headers = fc.option(
  fc.dictionary(fc.constantFrom('cmcd-request', 'CMCD-Request', 'cmcd-object', 'x'), headerValue),
  { nil: undefined },
);

describe('readReport never throws on what a client may send', () => {
  it('arbitrary targets and headers give a report with values in range', () => {
    fc.assert(
      fc.property(fc.constantFrom('hls', 'dash' as const), target, headers, ids, (p, t, h, i) => {
        const r = readReport(
          h === undefined ? { protocol: p, target: t } : { protocol: p, target: t, headers: h },
          i,
        );
        if (r.pathway !== null) {
          expect(Number.isInteger(r.pathway)).toBe(true);
          expect(r.pathway).toBeGreaterThanOrEqual(0);
          expect(r.pathway).toBeLessThan(i.length);
        }
        for (const v of [r.throughput, r.buffer]) {
          if (v !== null) {
            expect(typeof v).toBe('bigint');
            expect(v >= 0n && v <= U64_MAX).toBe(true);
          }
        }
        const json = reportJson(r);
        expect(JSON.parse(JSON.stringify(json))).toEqual(json);
      }),
      { numRuns: RUNS * 5 },
    );
  });

  it('a target string reads as its UTF-8 bytes', () => {
    fc.assert(
      fc.property(fc.constantFrom('hls', 'dash' as const), target, ids, (p, t, i) => {
        if (typeof t !== 'string') return;
        const bytes = new TextEncoder().encode(t);
        expect(readReport({ protocol: p, target: t }, i)).toEqual(
          readReport({ protocol: p, target: bytes }, i),
        );
      }),
      { numRuns: RUNS },
    );
  });

  it('a target string reads as its UTF-8 bytes, with ids that the pieces name', () => {
    // The ASCII string path reads names and values without encoding the target; the byte path
    // is the reference. Ids drawn from what the pieces spell, so that pathways match.
    const named = fc.uniqueArray(fc.constantFrom('a', 'b', '0', 'ab', 'é', 'a,b', '"a"', ''), {
      maxLength: 4,
    });
    const query = fc
      .array(
        fc.oneof(
          piece,
          fc.constantFrom('a', 'b', 'ab', '0', '1', '%61', '%E9', '%C3%A9', 'é'),
          // Read names spelled with `%`, whole and with a bad escape.
          fc.constantFrom('%5FHLS_pathway=', '_DASH_p%61thway=', '%43MCD=', 'CMC%4=', '%5F%5'),
          // Read names with no `=`, which a longer name may begin with.
          fc.constantFrom('_HLS_pathway', '_DASH_throughput', 'CMCD'),
        ),
        {
          maxLength: 30,
        },
      )
      .map((a) => `/s?${a.join('')}`);
    fc.assert(
      fc.property(fc.constantFrom('hls', 'dash' as const), query, named, (p, t, i) => {
        const bytes = new TextEncoder().encode(t);
        expect(readReport({ protocol: p, target: t }, i)).toEqual(
          readReport({ protocol: p, target: bytes }, i),
        );
      }),
      { numRuns: RUNS * 5 },
    );
  });
});

describe('linear time', () => {
  it('a 1 MB target with 100 000 parts reads fast', () => {
    const parts = Array.from({ length: 100_000 }, (_, k) => `p${k}=%41${k}`);
    const t = `/s?${parts.join('&')}&_DASH_pathway=${'x,'.repeat(100_000)}a&_DASH_throughput=${'1,'.repeat(100_000)}9`;
    expect(readReport({ protocol: 'dash', target: t }, ['a'])).toEqual({
      pathway: 0,
      throughput: 9n,
      buffer: null,
    });
    // No duration is asserted: quadratic work on this target would take minutes, past the
    // test's timeout, where linear work takes milliseconds.
  });
});

describe('matching a pathway id', () => {
  const idPiece = fc.constantFrom('cdn-', 'a', 'b', '1', 'é', 'ß', '😀', '', ',');
  const id = fc.array(idPiece, { maxLength: 3 }).map((a) => a.join(''));
  const utf8 = (s: string) => new TextEncoder().encode(s);
  // matchPathway takes the bytes as Latin-1: a byte a character.
  const latin1 = (bytes: Uint8Array) => String.fromCharCode(...bytes);
  const reference = (value: Uint8Array, ids: readonly string[]) => {
    const k = ids.findIndex((i) => Buffer.from(utf8(i)).equals(value));
    return k === -1 ? null : k;
  };

  it('is the first id whose UTF-8 bytes are the value, for short and long lists', () => {
    fc.assert(
      fc.property(
        fc.array(id, { maxLength: 12 }),
        fc.oneof(id.map(utf8), fc.uint8Array({ maxLength: 8 })),
        (ids, value) => {
          expect(matchPathway(latin1(value), ids)).toBe(reference(value, ids));
        },
      ),
      { numRuns: RUNS * 5 },
    );
  });

  it('follows a list changed between calls', () => {
    fc.assert(
      fc.property(fc.array(id, { minLength: 5, maxLength: 12 }), id, fc.nat(), (ids, other, at) => {
        const list = [...ids];
        const value = utf8(list[at % list.length]!);
        expect(matchPathway(latin1(value), list)).toBe(reference(value, list));
        list[at % list.length] = other;
        expect(matchPathway(latin1(value), list)).toBe(reference(value, list));
        list.push(other);
        expect(matchPathway(latin1(utf8(other)), list)).toBe(reference(utf8(other), list));
      }),
      { numRuns: RUNS },
    );
  });
});
