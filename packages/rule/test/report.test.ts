import { describe, expect, it } from 'vitest';
import { type Protocol, type Report, readQuery, readReport, reportJson } from '../src/report.js';

const IDS = ['a', 'b', 'cdn-c'];

function read(
  protocol: Protocol,
  query: string,
  headers?: Record<string, string>,
  ids: readonly string[] = IDS,
): Report {
  const target = `/steer${query}`;
  return readReport(
    headers === undefined ? { protocol, target } : { protocol, target, headers },
    ids,
  );
}
const hls = (query: string, headers?: Record<string, string>, ids?: readonly string[]) =>
  read('hls', query, headers, ids);
const dash = (query: string, headers?: Record<string, string>, ids?: readonly string[]) =>
  read('dash', query, headers, ids);
const report = (
  pathway: number | null,
  throughput: bigint | null = null,
  buffer: bigint | null = null,
): Report => ({ pathway, throughput, buffer });

describe('§4.1 the query', () => {
  it('control: a pathway and a throughput are read', () => {
    expect(hls('?_HLS_pathway=b&_HLS_throughput=5000000')).toEqual(report(1, 5000000n));
  });

  it('no query, or an empty one, reads nothing (absent, never zero)', () => {
    expect(hls('')).toEqual(report(null));
    expect(hls('?')).toEqual(report(null));
    expect(dash('?&&')).toEqual(report(null));
  });

  it('the target is cut at its first "#" before the query is found (C9)', () => {
    expect(hls('?_HLS_pathway=a#&_HLS_throughput=5')).toEqual(report(0));
    expect(hls('#x?_HLS_pathway=a')).toEqual(report(null));
    expect(hls('?_HLS_pathway=a%23&_HLS_throughput=5', undefined, ['a#'])).toEqual(report(0, 5n));
  });

  it('the query follows the first "?"; a later "?" is part of the query', () => {
    expect(hls('?x=?&_HLS_pathway=a')).toEqual(report(0));
    expect(hls('??_HLS_pathway=a')).toEqual(report(null)); // the name is "?_HLS_pathway"
    expect(hls('?_HLS_pathway=a?b', undefined, ['a?b'])).toEqual(report(0));
  });

  it('a part is cut at its first "="; a part without "=" has an empty value', () => {
    expect(hls('?_HLS_pathway=a=b', undefined, ['a=b'])).toEqual(report(0));
    expect(hls('?_HLS_pathway', undefined, ['', 'a'])).toEqual(report(0));
    expect(hls('?_HLS_throughput')).toEqual(report(null));
    expect(readQuery('/s?x&=y&z=')).toEqual([
      { name: new TextEncoder().encode('x'), value: new Uint8Array() },
      { name: new Uint8Array(), value: new TextEncoder().encode('y') },
      { name: new TextEncoder().encode('z'), value: new Uint8Array() },
    ]);
  });

  it('names and values are percent-decoded, either case of hex', () => {
    expect(hls('?%5FHLS%5fpathway=%61&_HLS_%74hroughput=%35%30')).toEqual(report(0, 50n));
    expect(hls('?_HLS_pathway=cdn%2Dc')).toEqual(report(2));
  });

  it('"+" is not a space', () => {
    expect(hls('?_HLS_pathway=a%20b', undefined, ['a b'])).toEqual(report(0));
    expect(hls('?_HLS_pathway=a+b', undefined, ['a b'])).toEqual(report(null));
    expect(hls('?_HLS_pathway=a+b', undefined, ['a+b'])).toEqual(report(0));
    expect(hls('?_HLS_throughput=+5')).toEqual(report(null));
  });

  it('a part with a bad "%" is skipped before "the first is read" (C9)', () => {
    expect(hls('?_HLS_pathway=%zz&_HLS_pathway=a')).toEqual(report(0));
    expect(hls('?_HLS_pathway=b%&_HLS_pathway=a')).toEqual(report(0));
    expect(hls('?_HLS_pathway=b%4&_HLS_pathway=a')).toEqual(report(0));
    expect(hls('?_HLS_pathway%=b&_HLS_pathway=a')).toEqual(report(0));
    expect(hls('?_HLS_throughput=5%g1&_HLS_throughput=7')).toEqual(report(null, 7n));
    // Control: a good first part is read.
    expect(hls('?_HLS_pathway=b&_HLS_pathway=a')).toEqual(report(1));
  });

  it('of the parts with a name, the first is read even when it does not read', () => {
    expect(hls('?_HLS_throughput=1&_HLS_throughput=2')).toEqual(report(null, 1n));
    expect(hls('?_HLS_throughput=x&_HLS_throughput=2')).toEqual(report(null));
    expect(hls('?_HLS_pathway=zz&_HLS_pathway=a')).toEqual(report(null));
  });

  it('names are bytes: case matters', () => {
    expect(hls('?_hls_pathway=a&_HLS_Throughput=5')).toEqual(report(null));
  });

  it('unquoting removes one `"` at each end, after decoding, with at least 2 bytes (C9)', () => {
    expect(hls('?_HLS_pathway="a"')).toEqual(report(0));
    expect(hls('?_HLS_pathway=%22a%22')).toEqual(report(0));
    expect(hls('?_HLS_pathway=""a""')).toEqual(report(null)); // one pair only
    expect(hls('?_HLS_pathway=""a""', undefined, ['"a"'])).toEqual(report(0));
    expect(hls('?_HLS_pathway="a')).toEqual(report(null));
    expect(hls('?_HLS_pathway=a"')).toEqual(report(null));
    expect(hls('?_HLS_pathway="', undefined, ['"'])).toEqual(report(0)); // 1 byte: kept
    expect(hls('?_HLS_pathway=""', undefined, ['x', ''])).toEqual(report(1));
  });

  it('an integer is 1 to 20 ASCII digits, at most 2^64 − 1; leading zeros allowed (C9)', () => {
    const t = (v: string) => hls(`?_HLS_throughput=${v}`).throughput;
    expect(t('0')).toBe(0n);
    expect(t('007')).toBe(7n);
    expect(t('00000000000000000001')).toBe(1n); // 20 digits
    expect(t('000000000000000000001')).toBe(null); // 21 digits
    expect(t('18446744073709551615')).toBe(18446744073709551615n);
    expect(t('18446744073709551616')).toBe(null);
    expect(t('99999999999999999999')).toBe(null);
    for (const bad of ['', '+5', '5.0', '-1', '-0', ' 5', '5%20', '1e3', '0x10', '５']) {
      expect(t(bad), bad).toBe(null);
    }
  });

  it('throughputs are never unquoted (C9)', () => {
    expect(hls('?_HLS_throughput="5"')).toEqual(report(null));
    expect(hls('?_HLS_throughput=%225%22')).toEqual(report(null));
    expect(dash('?_DASH_throughput="5"')).toEqual(report(null));
  });

  it('decoded bytes may be anything; a pathway matches only the exact bytes of an id', () => {
    expect(hls('?_HLS_pathway=%00%FF%C3%A9')).toEqual(report(null));
    expect(hls('?_HLS_pathway=%61%00')).toEqual(report(null));
    expect(hls('?_HLS_pathway=A')).toEqual(report(null));
    // A target given as bytes, and a string target as its UTF-8 bytes (C9).
    const bytes = new Uint8Array([...new TextEncoder().encode('/s?_HLS_pathway=a&x='), 0xff]);
    expect(readReport({ protocol: 'hls', target: bytes }, IDS)).toEqual(report(0));
    expect(hls('?_HLS_pathway=é', undefined, ['a', 'é'])).toEqual(report(1));
    expect(hls('?_HLS_pathway=%C3%A9', undefined, ['a', 'é'])).toEqual(report(1));
    // The Latin-1 byte of `é` is not its UTF-8, and one UTF-8 id is not another of its length.
    expect(hls('?_HLS_pathway=%E9', undefined, ['a', 'é'])).toEqual(report(null));
    expect(hls('?_HLS_pathway=%C3%A9', undefined, ['a', 'ß'])).toEqual(report(null));
    expect(hls('?_HLS_pathway=%F0%9F%98%80', undefined, ['a', '😀'])).toEqual(report(1));
  });
});

describe('§4.2 HLS', () => {
  it('control: `_HLS_pathway` names the id, `_HLS_throughput` the bits per second', () => {
    expect(hls('?_HLS_pathway="cdn-c"&_HLS_throughput=123')).toEqual(report(2, 123n));
  });

  it('an id not in the policy gives no c', () => {
    expect(hls('?_HLS_pathway=d&_HLS_throughput=123')).toEqual(report(null, 123n));
  });

  it('only the `_HLS_` family is read for HLS (C9)', () => {
    expect(hls('?_DASH_pathway=a&_DASH_throughput=5')).toEqual(report(null));
  });

  it('a list is not read for HLS: the value is one id', () => {
    expect(hls('?_HLS_pathway="a,b"')).toEqual(report(null));
    expect(hls('?_HLS_pathway="a,b"', undefined, ['a,b'])).toEqual(report(0));
  });
});

describe('§4.3 DASH', () => {
  it('control: the first item that is an id gives c, at position j; T is the item at j', () => {
    expect(dash('?_DASH_pathway="x,b,a"&_DASH_throughput=1,2,3')).toEqual(report(1, 2n));
  });

  it('with or without quotes (the clause writes both)', () => {
    expect(dash('?_DASH_pathway=x,b&_DASH_throughput=1,2')).toEqual(report(1, 2n));
    expect(dash('?_DASH_pathway=%22x%2Cb%22&_DASH_throughput=1%2C2')).toEqual(report(1, 2n));
  });

  it('unquoting comes before the cut, and removes the outer pair only', () => {
    expect(dash('?_DASH_pathway="a","b"')).toEqual(report(null)); // items `a"` and `"b`
    expect(dash('?_DASH_pathway="a"')).toEqual(report(0));
  });

  it('items are not trimmed (C9)', () => {
    expect(dash('?_DASH_pathway="x, b"&_DASH_throughput=1,2')).toEqual(report(null, 1n));
    expect(dash('?_DASH_pathway="x,b"&_DASH_throughput=1, 2')).toEqual(report(1));
  });

  it('the cut is on decoded bytes: %2C is a comma', () => {
    expect(dash('?_DASH_pathway=x%2Ca&_DASH_throughput=7%2C8')).toEqual(report(0, 8n));
  });

  it('no pathway current (none named, or none of the policy): T is the item at 0 (C9)', () => {
    expect(dash('?_DASH_throughput=7,8')).toEqual(report(null, 7n));
    expect(dash('?_DASH_pathway="x,y"&_DASH_throughput=7,8')).toEqual(report(null, 7n));
    expect(dash('?_DASH_pathway=&_DASH_throughput=7')).toEqual(report(null, 7n));
  });

  it('no item at j gives no T from §4.3, and CMCD `mtp` may give it (C9)', () => {
    expect(dash('?_DASH_pathway=x,a&_DASH_throughput=5')).toEqual(report(0));
    expect(dash('?_DASH_pathway=x,a&_DASH_throughput=5&CMCD=mtp%3D25')).toEqual(report(0, 25000n));
  });

  it('an item at j that does not read gives no T from §4.3; CMCD `mtp` may (C9)', () => {
    expect(dash('?_DASH_pathway=x,a&_DASH_throughput=5,abc')).toEqual(report(0));
    expect(dash('?_DASH_pathway=x,a&_DASH_throughput=5,')).toEqual(report(0));
    expect(dash('?_DASH_pathway=x,a&_DASH_throughput=5,&CMCD=mtp%3D25')).toEqual(report(0, 25000n));
    // An empty `_DASH_throughput` has one empty item at 0.
    expect(dash('?_DASH_throughput=&CMCD=mtp%3D3')).toEqual(report(null, 3000n));
  });

  it('the first matching item wins, whatever the policy order', () => {
    expect(dash('?_DASH_pathway=b,a&_DASH_throughput=1,2')).toEqual(report(1, 1n));
  });

  it('only the `_DASH_` family is read for DASH (C9)', () => {
    expect(dash('?_HLS_pathway=a&_HLS_throughput=5')).toEqual(report(null));
  });
});

describe('§4.4 CMCD', () => {
  it('control: `bl` gives B; `mtp` × 1000 gives T when §4.2/§4.3 give none', () => {
    expect(hls('?CMCD=bl%3D21300%2Cmtp%3D25400')).toEqual(report(null, 25400000n, 21300n));
    expect(dash('?CMCD=bl%3D21300%2Cmtp%3D25400')).toEqual(report(null, 25400000n, 21300n));
  });

  it('a T from §4.2 or §4.3 stands over `mtp`', () => {
    expect(hls('?_HLS_throughput=9&CMCD=mtp%3D25400')).toEqual(report(null, 9n));
    expect(dash('?_DASH_throughput=9&CMCD=mtp%3D25400')).toEqual(report(null, 9n));
    // A throughput that does not read leaves `mtp` to give T.
    expect(hls('?_HLS_throughput=x&CMCD=mtp%3D2')).toEqual(report(null, 2000n));
  });

  it('the `CMCD-Request` header, its name in any case (C9)', () => {
    for (const name of ['cmcd-request', 'CMCD-Request', 'Cmcd-REQUEST']) {
      expect(hls('', { [name]: 'bl=300,mtp=2' })).toEqual(report(null, 2000n, 300n));
    }
    expect(hls('', { 'cmcd-object': 'bl=300', 'cmcd-session': 'mtp=2' })).toEqual(report(null));
    expect(hls('', { 'cmcd-requests': 'bl=300' })).toEqual(report(null));
  });

  it('the query part stands over the header; `CMCD=` empty is still the part (C9)', () => {
    expect(hls('?CMCD=bl%3D1', { 'cmcd-request': 'bl=300' })).toEqual(report(null, null, 1n));
    expect(hls('?CMCD=', { 'cmcd-request': 'bl=300' })).toEqual(report(null));
    expect(hls('?CMCD', { 'cmcd-request': 'bl=300' })).toEqual(report(null));
    // Not the part: another case, or a part dropped for a bad "%" (C9).
    expect(hls('?cmcd=bl%3D1', { 'cmcd-request': 'bl=300' })).toEqual(report(null, null, 300n));
    expect(hls('?CMCD=bl%3D1%', { 'cmcd-request': 'bl=300' })).toEqual(report(null, null, 300n));
    // Of two CMCD parts the first is read.
    expect(hls('?CMCD=bl%3D1&CMCD=bl%3D2')).toEqual(report(null, null, 1n));
  });

  it('an Integer with parameters is read (C9)', () => {
    expect(hls('', { 'cmcd-request': 'bl=300;ot=v' })).toEqual(report(null, null, 300n));
  });

  it('an Inner List of Integers gives the least; its own parameters are ignored', () => {
    expect(hls('', { 'cmcd-request': 'bl=(300;v 200;a),mtp=(5;v 9;a)' })).toEqual(
      report(null, 5000n, 200n),
    );
    expect(hls('', { 'cmcd-request': 'bl=(300 200);x=1' })).toEqual(report(null, null, 200n));
    expect(hls('', { 'cmcd-request': 'bl=( 7 )' })).toEqual(report(null, null, 7n));
  });

  it('an empty Inner List, or one with a member not an Integer ≥ 0, is absent (C9)', () => {
    for (const bl of ['()', '(300 a)', '(300 -1)', '(300 1.5)', '(300 "4")', '(300 ?1)']) {
      expect(hls('', { 'cmcd-request': `bl=${bl}` }), bl).toEqual(report(null));
    }
  });

  it('anything but an Integer ≥ 0 is absent; -0 is 0 (C9)', () => {
    for (const bl of ['-1', '1.5', '1.0', '"300"', 'tok', '?1', ':aGk=:', '@5', '%"5"']) {
      expect(hls('', { 'cmcd-request': `bl=${bl}` }), bl).toEqual(report(null));
    }
    expect(hls('', { 'cmcd-request': 'bl' })).toEqual(report(null)); // a bare key is true
    expect(hls('', { 'cmcd-request': 'bl=-0' })).toEqual(report(null, null, 0n));
    expect(hls('', { 'cmcd-request': 'bl=0' })).toEqual(report(null, null, 0n));
  });

  it('the largest `mtp` times 1000 still fits a u64', () => {
    expect(hls('', { 'cmcd-request': 'mtp=999999999999999,bl=999999999999999' })).toEqual(
      report(null, 999999999999999000n, 999999999999999n),
    );
    expect(hls('', { 'cmcd-request': 'bl=1000000000000000' })).toEqual(report(null));
  });

  it('duplicate keys: the last wins (RFC 9651, C9)', () => {
    expect(hls('', { 'cmcd-request': 'bl=1,bl=2' })).toEqual(report(null, null, 2n));
    expect(hls('', { 'cmcd-request': 'bl=1,bl=x' })).toEqual(report(null));
  });

  it('a value that does not parse gives neither key', () => {
    for (const v of ['bl=300,mtp=2,', 'bl=300, MTP=2', 'bl=300 mtp=2', 'bl=300,,mtp=2', 'bl=(1']) {
      expect(hls('', { 'cmcd-request': v }), v).toEqual(report(null));
    }
  });

  it('the whole grammar: Dates, Display Strings and Byte Sequences beside `bl`', () => {
    const v = 'ts=@1700000000,d=@99999999999999,n=%"f%c3%bc",b=:aGk:,bl=300,e=:aA=:,mtp=2';
    expect(hls('', { 'cmcd-request': v })).toEqual(report(null, 2000n, 300n));
    // A Byte Sequence that C9 refuses makes the whole value fail.
    expect(hls('', { 'cmcd-request': 'x=:a:,bl=300' })).toEqual(report(null));
    expect(hls('', { 'cmcd-request': 'x=:a=b:,bl=300' })).toEqual(report(null));
    expect(hls('', { 'cmcd-request': 'x=%"%C3",bl=300' })).toEqual(report(null));
  });

  it('a non-ASCII byte makes the value fail (C9)', () => {
    expect(hls('', { 'cmcd-request': 'bl=300,sid="é"' })).toEqual(report(null));
    expect(hls('?CMCD=bl%3D300%2Csid%3D%22%C3%A9%22')).toEqual(report(null));
    expect(hls('?CMCD=bl%3D300%2Csid%3D%22%FF%22')).toEqual(report(null));
    expect(hls('?CMCD=bl%3D300%2Csid%3D%22%7F%22')).toEqual(report(null)); // DEL: not in a String
    // Control: the same value in ASCII.
    expect(hls('?CMCD=bl%3D300%2Csid%3D%22e%22')).toEqual(report(null, null, 300n));
  });

  it('leading and trailing SP are discarded; a tab there makes it fail (C9)', () => {
    expect(hls('', { 'cmcd-request': '  bl=300  ' })).toEqual(report(null, null, 300n));
    expect(hls('?CMCD=%20bl%3D300%20')).toEqual(report(null, null, 300n));
    expect(hls('', { 'cmcd-request': '\tbl=300' })).toEqual(report(null));
    expect(hls('', { 'cmcd-request': 'bl=300\t' })).toEqual(report(null));
    expect(hls('', { 'cmcd-request': 'bl=300\t ' })).toEqual(report(null));
    // Inside, a tab is RFC 9651 OWS around a comma.
    expect(hls('', { 'cmcd-request': 'bl=300\t,\tmtp=2' })).toEqual(report(null, 2000n, 300n));
  });

  it('`+` in the CMCD part is not a space', () => {
    expect(hls('?CMCD=bl%3D300,+mtp%3D2')).toEqual(report(null));
    expect(hls('?CMCD=bl%3D300,%20mtp%3D2')).toEqual(report(null, 2000n, 300n));
  });
});

describe('caller misuse is a TypeError', () => {
  it('wrong shapes throw TypeError', () => {
    expect(() => readReport({ protocol: 'rtsp' as Protocol, target: '/' }, IDS)).toThrow(TypeError);
    expect(() => readReport({ protocol: 'hls', target: 5 as unknown as string }, IDS)).toThrow(
      TypeError,
    );
    expect(() => readReport({ protocol: 'hls', target: '/' }, [1] as unknown as string[])).toThrow(
      TypeError,
    );
    expect(() =>
      readReport(
        { protocol: 'hls', target: '/', headers: 'x' as unknown as Record<string, string> },
        IDS,
      ),
    ).toThrow(TypeError);
  });
});

describe('C8: the report as JSON', () => {
  it('u64 quantities as decimal strings, absent as null', () => {
    expect(reportJson(report(2, 18446744073709551615n, 0n))).toEqual({
      pathway: 2,
      throughput: '18446744073709551615',
      buffer: '0',
    });
    expect(reportJson(report(null))).toEqual({ pathway: null, throughput: null, buffer: null });
    expect(JSON.stringify(reportJson(report(0, 1n, null)))).toBe(
      '{"pathway":0,"throughput":"1","buffer":null}',
    );
  });
});

/**
 * The forms real players send, from their source:
 * - hls.js 1.7.4 `src/controller/content-steering-controller.ts` lines 436–439 and
 *   `src/utils/url-tools.ts` lines 14–16: `_HLS_pathway` and `_HLS_throughput` through
 *   `encodeURIComponent`, unquoted; the throughput is `(bandwidthEstimate || default) | 0`.
 *   Earlier releases set them with `url.searchParams.set` (form encoding: a space is `+`).
 * - dash.js 5.2.1 `src/dash/controllers/ContentSteeringController.js` lines 304–327 and
 *   `src/core/Utils.js` lines 83–93: `_DASH_pathway` is `"` + every service location used since
 *   the last request, joined with `,`, + `"`, and `_DASH_throughput` the same positions with
 *   an empty item where unknown, both through `encodeURIComponent`. CMCD on steering requests
 *   when `includeInRequests` holds `steering` (`src/streaming/models/CmcdModel.js` lines 53,
 *   764, 795); CMCD v2 (its default) writes `bl` and `mtp` as Inner Lists with a `v` or `a`
 *   parameter (lines 115–124, 189, 199); query mode is `CMCD=` + `encodeURIComponent` of the
 *   Dictionary.
 * - shaka-player 5.2.12 `lib/util/content_steering_manager.js` lines 160–176 and
 *   `lib/util/url.js` lines 178–189: one unquoted `_DASH_pathway` / `_HLS_pathway` and a
 *   rounded throughput through `encodeURIComponent`; nothing before its first steering
 *   response (line 161).
 * - video.js (@videojs/http-streaming 3.17.5) `src/content-steering-controller.js` lines
 *   275–292: one unquoted pathway and the bandwidth through `URLSearchParams.set`.
 */
describe('players', () => {
  const enc = encodeURIComponent;

  it('hls.js: unquoted, URI-component-encoded pathway and integer throughput', () => {
    expect(hls(`?_HLS_pathway=${enc('cdn-c')}&_HLS_throughput=${5000000 | 0}`)).toEqual(
      report(2, 5000000n),
    );
    // Parameters of the reload URI stay before hls.js's own.
    expect(hls('?session=1&_HLS_pathway=a&_HLS_throughput=1500000')).toEqual(report(0, 1500000n));
    // An id with a space: encodeURIComponent writes %20, which matches.
    expect(hls(`?_HLS_pathway=${enc('cdn a')}`, undefined, ['cdn a'])).toEqual(report(0));
  });

  it('hls.js before setQueryParam: URLSearchParams writes a space as "+", never a space here', () => {
    const url = new URL('https://s.example/steer');
    url.searchParams.set('_HLS_pathway', 'cdn a');
    url.searchParams.set('_HLS_throughput', '2000000');
    expect(readReport({ protocol: 'hls', target: url.pathname + url.search }, ['cdn a'])).toEqual(
      report(null, 2000000n),
    );
  });

  it('hls.js: `| 0` wraps an estimate of 2^31 bit/s or more to a negative number: no T', () => {
    const wrapped = 3_000_000_000 | 0; // -1294967296
    expect(hls(`?_HLS_pathway=a&_HLS_throughput=${wrapped}`)).toEqual(report(0));
  });

  it('hls.js: its default pathway "." before the manifest names one', () => {
    expect(hls('?_HLS_pathway=.&_HLS_throughput=500000')).toEqual(report(null, 500000n));
    expect(hls('?_HLS_pathway=.&_HLS_throughput=500000', undefined, ['.'])).toEqual(
      report(0, 500000n),
    );
  });

  it('dash.js: a quoted comma list, empty throughput items where unknown', () => {
    const q = `?_DASH_pathway=${enc('"a,b"')}&_DASH_throughput=${enc('450000,')}`;
    expect(q).toBe('?_DASH_pathway=%22a%2Cb%22&_DASH_throughput=450000%2C');
    expect(dash(q)).toEqual(report(0, 450000n));
    // The policy knows only b, used second, whose throughput is unknown: no T.
    expect(dash(q, undefined, ['x', 'b'])).toEqual(report(1));
    // The policy knows neither: no pathway is current, T is the item at 0.
    expect(dash(q, undefined, ['x'])).toEqual(report(null, 450000n));
  });

  it('dash.js: CMCD v1 in the query on a steering request', () => {
    const cmcd = 'bl=21300,br=3200,mtp=25400,ot=o,sid="6e2fb550-c457-11e9-bb97-0800200c9a66"';
    const q = `?_DASH_pathway=${enc('"b"')}&_DASH_throughput=${enc(',')}&CMCD=${enc(cmcd)}`;
    expect(q).toContain(
      'CMCD=bl%3D21300%2Cbr%3D3200%2Cmtp%3D25400%2Cot%3Do%2Csid%3D%226e2fb550-c457-11e9-bb97-0800200c9a66%22',
    );
    expect(dash(q)).toEqual(report(1, 25400000n, 21300n));
  });

  it('dash.js: CMCD v2 Inner Lists in the query', () => {
    const cmcd = 'bl=(21300;v),br=(3200;v),mtp=(25400;v),ot=o,sid="s",v=2';
    expect(dash(`?CMCD=${enc(cmcd)}`)).toEqual(report(null, 25400000n, 21300n));
    const both = 'bl=(21300;v 9000;a),mtp=(25400;v 800;a),v=2';
    expect(dash(`?CMCD=${enc(both)}`)).toEqual(report(null, 800000n, 9000n));
  });

  it('dash.js: CMCD in header mode', () => {
    const headers = {
      'CMCD-Request': 'bl=21300,mtp=25400',
      'CMCD-Object': 'br=3200,ot=o',
      'CMCD-Session': 'sid="6e2fb550-c457-11e9-bb97-0800200c9a66"',
    };
    expect(dash(`?_DASH_pathway=${enc('"a"')}&_DASH_throughput=`, headers)).toEqual(
      report(0, 25400000n, 21300n),
    );
  });

  it('shaka-player: one unquoted pathway, for DASH and for HLS', () => {
    expect(dash('?_DASH_pathway=b&_DASH_throughput=4194304')).toEqual(report(1, 4194304n));
    expect(hls('?_HLS_pathway=b&_HLS_throughput=4194304')).toEqual(report(1, 4194304n));
  });

  it('shaka-player: nothing on its first request', () => {
    expect(dash('')).toEqual(report(null));
    expect(hls('?token=abc')).toEqual(report(null));
  });

  it('video.js: one unquoted pathway through URLSearchParams', () => {
    for (const [protocol, prefix] of [
      ['hls', '_HLS_'],
      ['dash', '_DASH_'],
    ] as const) {
      const url = new URL('https://s.example/steer?x=1');
      url.searchParams.set(`${prefix}pathway`, 'cdn-c');
      url.searchParams.set(`${prefix}throughput`, String(4194304));
      expect(readReport({ protocol, target: url.pathname + url.search }, IDS)).toEqual(
        report(2, 4194304n),
      );
    }
  });
});
