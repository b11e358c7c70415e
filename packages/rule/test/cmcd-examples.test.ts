// §4.4 on CMCD we did not write: the request-mode examples of CTA-5004-B (section 8.1) as the
// SVTA common-media-library's tests hold them, and the CMCD real players put on their steering
// requests (test/vectors/). The library's validator (`@svta/cml-cmcd`) says which examples are
// valid CMCD; whatever it says, `readReport` must read from each what §4.4 says: `bl` and `mtp`,
// each an Integer of 0 or above or a non-empty Inner List of them (the least), from an RFC 9651
// Dictionary; a value that does not parse gives neither key. The expected report is computed
// from the library's own decoding of the example, not from `readReport`.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeCmcd, validateCmcdRequest } from '@svta/cml-cmcd';
import { describe, expect, it } from 'vitest';
import { type Report, readReport } from '../src/report.js';

const here = dirname(fileURLToPath(import.meta.url));
const examples = JSON.parse(
  readFileSync(join(here, 'vectors', 'cta-5004-b', 'request-mode.json'), 'utf8'),
) as { query: Record<string, string>; headers: Record<string, Record<string, string>> };
const players = JSON.parse(readFileSync(join(here, 'vectors', 'players-cmcd.json'), 'utf8')) as {
  'dash.js 5.2.1, version 2, query': string[];
  'dash.js 5.2.1, version 2, headers': Record<string, string>[];
};

const IDS = ['cdn-a', 'cdn-b'];
const ORIGIN = 'https://steer.example';

/** A key as §4.4 reads it, from the library's decoding: an integer, or the least of a list. */
function least(value: unknown): bigint | null {
  const integer = (v: unknown): bigint | null =>
    typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? BigInt(v) : null;
  if (!Array.isArray(value)) return integer(value);
  if (value.length === 0) return null;
  let out: bigint | null = null;
  for (const item of value) {
    const v = integer(
      typeof item === 'object' && item !== null ? (item as { value: unknown }).value : item,
    );
    if (v === null) return null;
    if (out === null || v < out) out = v;
  }
  return out;
}

/** The report §4 gives for a DASH request naming `cdn-a` and no throughput, with CMCD `cmcd`. */
function expectedFrom(cmcd: Record<string, unknown>): Report {
  const mtp = least(cmcd.mtp);
  return { pathway: 0, throughput: mtp === null ? null : mtp * 1000n, buffer: least(cmcd.bl) };
}

const PATHWAY = '_DASH_pathway=%22cdn-a%22';

describe('CTA-5004-B request-mode examples (common-media-library test data)', () => {
  const names = Object.keys(examples.query);

  it('holds the 16 examples of section 8.1, and the validator accepts each', () => {
    expect(names.length).toEqual(16);
    const refused = names.filter((name) => {
      const target = `/steer?${PATHWAY}&CMCD=${encodeURIComponent(examples.query[name]!)}`;
      return !validateCmcdRequest(new Request(`${ORIGIN}${target}`)).valid;
    });
    // Every example is valid CMCD; the test below holds each one, valid or not, to §4.
    expect(refused).toEqual([]);
  });

  it.each(names)('%s in the CMCD query argument reads as §4.4 says', (name) => {
    const payload = examples.query[name]!;
    // CTA-5004-B: the payload, percent-encoded (RFC 3986), as the value of `CMCD`.
    const target = `/steer?${PATHWAY}&CMCD=${encodeURIComponent(payload)}`;
    const validated = validateCmcdRequest(new Request(`${ORIGIN}${target}`));
    const stated = expectedFrom(validated.data as Record<string, unknown>);
    // The library decodes the payload alone the same way.
    expect(expectedFrom(decodeCmcd(payload) as Record<string, unknown>)).toEqual(stated);
    expect(readReport({ protocol: 'dash', target }, IDS)).toEqual(stated);
  });

  it('8.1.1 in its header shards reads as its query form does: bl and mtp from CMCD-Request', () => {
    const headers = examples.headers['8.1.1']!;
    const target = `/steer?${PATHWAY}`;
    const validated = validateCmcdRequest(new Request(`${ORIGIN}${target}`, { headers }));
    expect(validated.valid).toEqual(true);
    const stated = expectedFrom(validated.data as Record<string, unknown>);
    expect(stated).toEqual({ pathway: 0, throughput: 15_000_000n, buffer: 2000n });
    expect(readReport({ protocol: 'dash', target, headers }, IDS)).toEqual(stated);
    // The other shards do not carry bl or mtp; §4.4 reads CMCD-Request alone.
    const { 'CMCD-Request': _, ...others } = headers;
    expect(readReport({ protocol: 'dash', target, headers: others }, IDS)).toEqual({
      pathway: 0,
      throughput: null,
      buffer: null,
    });
  });

  it('a payload the validator refuses is still read as §4.4 says: a broken Dictionary gives neither key, a key of another type is absent', () => {
    const cases: [string, Report, boolean][] = [
      // Not a Dictionary (a bare `(`): neither key, though bl is written first. Refused.
      ['bl=(2000),mtp=(15000),ot=(', { pathway: 0, throughput: null, buffer: null }, false],
      // bl a String: absent; mtp read. Refused (bl must be a list).
      ['bl="2000",mtp=(15000),v=2', { pathway: 0, throughput: 15_000_000n, buffer: null }, false],
      // bl a Decimal, mtp negative: both absent under §4.4. The validator accepts them.
      ['bl=(2000.5),mtp=(-1),v=2', { pathway: 0, throughput: null, buffer: null }, true],
      // An empty Inner List: absent under §4.4. The validator accepts it.
      ['bl=(),mtp=(15000),v=2', { pathway: 0, throughput: 15_000_000n, buffer: null }, true],
    ];
    for (const [payload, report, valid] of cases) {
      const target = `/steer?${PATHWAY}&CMCD=${encodeURIComponent(payload)}`;
      expect(validateCmcdRequest(new Request(`${ORIGIN}${target}`)).valid, payload).toEqual(valid);
      expect(readReport({ protocol: 'dash', target }, IDS), payload).toEqual(report);
    }
  });
});

describe('the CMCD version 2 that players put on steering requests', () => {
  it('dash.js in headers: refused by the validator (tpb with ot=o), and read as §4.4 says: bl from CMCD-Request, the least of its Inner List', () => {
    for (const { target, ...headers } of players['dash.js 5.2.1, version 2, headers']) {
      const validated = validateCmcdRequest(new Request(`${ORIGIN}${target!}`, { headers }));
      // CTA-5004-B allows `tpb` only with `ot` a, v, av or c; dash.js sends `ot=o` on steering.
      expect(validated.valid).toEqual(false);
      expect(validated.issues.map((i) => i.key)).toEqual(['tpb']);
      const data = validated.data as Record<string, unknown>;
      const report = readReport({ protocol: 'dash', target: target!, headers }, ['cdn-a', 'cdn-b']);
      // _DASH_throughput gives T; CMCD gives B.
      expect(report.buffer).toEqual(least(data.bl));
      expect(report.pathway).toEqual(1);
      expect(report.throughput).toEqual(
        BigInt(new URLSearchParams(target!.split('?')[1]).get('_DASH_throughput')!),
      );
    }
  });

  it('dash.js in the query: its spaces written `+` are not spaces (§4.1), so the Dictionary does not parse and neither key is read', () => {
    for (const target of players['dash.js 5.2.1, version 2, query']) {
      const raw = target.split('CMCD=')[1]!;
      // The form encoding dash.js used: `+` for the space between Inner List items.
      expect(raw).toContain('+64');
      // Read with `+` as a space (HTML forms), the payload is valid CMCD with a buffer...
      const asForm = new URLSearchParams(target.split('?')[1]).get('CMCD')!;
      expect(least(decodeCmcd(asForm).bl)).toEqual(2000n);
      // ...but §4.1 decodes percent-escapes only: the value holds `(202;v+64;a)`, not RFC 9651.
      const report = readReport({ protocol: 'dash', target }, ['cdn-a', 'cdn-b']);
      expect(report.buffer).toEqual(null);
      // T then comes from _DASH_throughput alone (its item for the current pathway).
      expect(report.throughput).not.toEqual(null);
    }
  });
});
