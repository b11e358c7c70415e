import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { protocolOf, sessionOf } from '../src/request.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 2000);
const S = '00112233445566778899aabbccddeeff';
const piece = fc.constantFrom(
  '?',
  '#',
  '&',
  '=',
  '%',
  '%zz',
  '%5F',
  '_DASH_',
  '_DASH_pathway=',
  '_HLS_pathway=',
  'wai_session',
  'wai_session=',
  'wai%5Fsession=',
  S,
  S.toUpperCase(),
  `${S.slice(0, 31)}g`,
  'a',
  'é',
);
const target = fc
  .array(fc.oneof(piece, fc.string({ maxLength: 3 })), { maxLength: 20 })
  .map((a) => `/steer${a.join('')}`);

describe('the ASCII fast path reads what the byte path reads', () => {
  it('protocolOf and sessionOf of a string equal those of its UTF-8 bytes', () => {
    fc.assert(
      fc.property(target, (t) => {
        const bytes = new TextEncoder().encode(t);
        expect(protocolOf(t)).toBe(protocolOf(bytes));
        expect(sessionOf(t)).toEqual(sessionOf(bytes));
      }),
      { numRuns: RUNS },
    );
  });
});
