/**
 * Steering requests (§4) and the report each gives, worked out by hand from §4 and companion
 * C9 against a policy whose pathways are cdn-a (0), cdn-b (1) and cdn-c (2). The generator
 * asserts that `readReport` gives each of them; the report here is never taken from the code.
 */
import type { SteeringRequest } from '@wai-steering/rule';

export interface ReportJsonByHand {
  readonly pathway: number | null;
  readonly throughput: string | null;
  readonly buffer: string | null;
}

export interface RequestCase {
  readonly name: string;
  readonly note: string;
  readonly request: SteeringRequest;
  readonly report: ReportJsonByHand;
}

/** The pathway IDs of the requests' policy, in its order. */
export const REQUEST_IDS = ['cdn-a', 'cdn-b', 'cdn-c'] as const;

const r = (
  pathway: number | null,
  throughput: string | null,
  buffer: string | null,
): ReportJsonByHand => ({ pathway, throughput, buffer });

function hls(
  name: string,
  note: string,
  target: string,
  report: ReportJsonByHand,
  headers: Record<string, string> = {},
): RequestCase {
  return { name: `hls/${name}`, note, request: { protocol: 'hls', target, headers }, report };
}

function dash(
  name: string,
  note: string,
  target: string,
  report: ReportJsonByHand,
  headers: Record<string, string> = {},
): RequestCase {
  return { name: `dash/${name}`, note, request: { protocol: 'dash', target, headers }, report };
}

function cmcd(
  name: string,
  note: string,
  target: string,
  report: ReportJsonByHand,
  headers: Record<string, string> = {},
): RequestCase {
  return { name: `cmcd/${name}`, note, request: { protocol: 'hls', target, headers }, report };
}

const SID = '%2Csid%3D%226e2fb550-c457-11e9-bb97-0800200c9a66%22';

export const REQUESTS: readonly RequestCase[] = [
  // ---- HLS (§4.2): the forms of rfc8216bis §7.4 and of real players.
  hls(
    'spec-quoted',
    'rfc8216bis §7.4: the pathway in double quotes (sent raw).',
    '/steer?_HLS_pathway="cdn-b"&_HLS_throughput=5000000',
    r(1, '5000000', null),
  ),
  hls(
    'spec-quoted-percent-encoded',
    'The quotes percent-encoded, as a browser sends them: decoded, then unquoted.',
    '/steer?_HLS_pathway=%22cdn-b%22&_HLS_throughput=5000000',
    r(1, '5000000', null),
  ),
  hls(
    'hls.js-first-request',
    'hls.js before its first manifest: pathway "." (no pathway of the policy) and its default estimate.',
    '/v1/steer?room=conf&_HLS_pathway=.&_HLS_throughput=500000',
    r(null, '500000', null),
  ),
  hls(
    'hls.js',
    'hls.js: the pathway unquoted and encodeURIComponent-ed, the throughput an integer.',
    '/v1/steer?room=conf&_HLS_pathway=cdn-a&_HLS_throughput=2345678',
    r(0, '2345678', null),
  ),
  hls(
    'hls.js-reload-uri',
    "hls.js on the manifest's RELOAD-URI: the session parameter is not read.",
    '/v1/steer?room=conf&wai_session=0123456789abcdef0123456789abcdef&_HLS_pathway=cdn-c&_HLS_throughput=12000000',
    r(2, '12000000', null),
  ),
  hls(
    'percent-encoded-id',
    'A pathway ID percent-encoded, upper- and lowercase hex: decoded before matching.',
    '/steer?_HLS_pathway=%63%64%6e%2D%61&_HLS_throughput=1000',
    r(0, '1000', null),
  ),
  hls(
    'percent-encoded-names',
    'Names are percent-decoded too.',
    '/steer?%5FHLS%5Fpathway=cdn-b&_HLS%5Fthroughput=777',
    r(1, '777', null),
  ),
  hls(
    'shaka',
    'shaka-player: one unquoted pathway and a rounded estimate.',
    '/v1/steer?room=conf&_HLS_pathway=cdn-b&_HLS_throughput=4194304',
    r(1, '4194304', null),
  ),
  hls(
    'shaka-first-request',
    'shaka-player sends nothing before its first manifest.',
    '/v1/steer?room=conf',
    r(null, null, null),
  ),
  hls(
    'video.js',
    'video.js (VHS) through URLSearchParams: one unquoted pathway.',
    '/v1/steer?room=conf&_HLS_pathway=cdn-c&_HLS_throughput=6291456',
    r(2, '6291456', null),
  ),
  hls(
    'video.js-fractional-throughput',
    'A throughput with a fraction is not an integer: absent, never rounded.',
    '/v1/steer?room=conf&_HLS_pathway=cdn-c&_HLS_throughput=6291456.5',
    r(2, null, null),
  ),
  hls(
    'cmcd-query',
    'CMCD v1 in the query (hls.js with CMCD on): bl read; mtp not, _HLS_throughput gave T.',
    `/v1/steer?room=conf&_HLS_pathway=cdn-a&_HLS_throughput=3000000&CMCD=bl%3D21300%2Cbr%3D3200%2Cmtp%3D25400%2Cot%3Do${SID}`,
    r(0, '3000000', '21300'),
  ),
  hls(
    'cmcd-query-mtp',
    'No _HLS_throughput: T is mtp × 1000.',
    '/v1/steer?room=conf&_HLS_pathway=cdn-a&CMCD=bl%3D21300%2Cmtp%3D25400',
    r(0, '25400000', '21300'),
  ),
  hls(
    'cmcd-header',
    'CMCD in the header shards: only CMCD-Request is read.',
    '/v1/steer?room=conf&_HLS_pathway=cdn-b&_HLS_throughput=5000000',
    r(1, '5000000', '12000'),
    {
      'cmcd-request': 'bl=12000, mtp=8000',
      'cmcd-object': 'br=3200,ot=o',
      'cmcd-session': 'sid="abc"',
    },
  ),
  hls(
    'cmcd-header-mtp',
    'mtp from the header gives T when the query gives none.',
    '/steer?_HLS_pathway=cdn-b',
    r(1, '8000000', null),
    { 'cmcd-request': 'mtp=8000' },
  ),
  hls(
    'cmcd-query-wins-over-header',
    'A CMCD part in the query: the header is not read.',
    '/steer?CMCD=bl%3D100',
    r(null, null, '100'),
    { 'cmcd-request': 'bl=9000,mtp=100' },
  ),
  hls(
    'cmcd-empty-query-part-with-header',
    'CMCD= with an empty value is a CMCD part: the header is not read, and neither key is set.',
    '/steer?_HLS_pathway=cdn-a&CMCD=',
    r(0, null, null),
    { 'cmcd-request': 'bl=9000,mtp=100' },
  ),
  hls(
    'cmcd-bad-percent-part-dropped',
    'A CMCD part with a bad "%" is dropped: the query has no CMCD part, so the header is read.',
    '/steer?CMCD=bl%3D1%ZZ&_HLS_pathway=cdn-a',
    r(0, null, '9000'),
    { 'cmcd-request': 'bl=9000' },
  ),
  hls(
    'bad-percent-skipped-next-read',
    'Parts with a bad "%" are skipped before "the first is read": the next part of that name is the first.',
    '/steer?_HLS_pathway=cdn-%zz&_HLS_pathway=cdn-b&_HLS_throughput=10%G0&_HLS_throughput=20',
    r(1, '20', null),
  ),
  hls(
    'first-wins',
    'Of the parts with a name, the first is read.',
    '/steer?_HLS_pathway=cdn-a&_HLS_pathway=cdn-b&_HLS_throughput=1&_HLS_throughput=2',
    r(0, '1', null),
  ),
  hls(
    'first-wins-even-when-unknown',
    'The first _HLS_pathway names no pathway: c is absent; the later one is ignored.',
    '/steer?_HLS_pathway=cdn-z&_HLS_pathway=cdn-b',
    r(null, null, null),
  ),
  hls(
    'part-without-equals',
    'A part with no "=" has an empty value, and it is the first of its name.',
    '/steer?_HLS_pathway&_HLS_pathway=cdn-a',
    r(null, null, null),
  ),
  hls(
    'leading-zeros-20-digits',
    'Leading zeros within 20 digits are an integer.',
    '/steer?_HLS_throughput=00000000000000000042',
    r(null, '42', null),
  ),
  hls(
    '21-digits',
    '21 digits are not an integer.',
    '/steer?_HLS_throughput=000000000000000000042',
    r(null, null, null),
  ),
  hls(
    'u64-max',
    '2^64 − 1 is an integer.',
    '/steer?_HLS_throughput=18446744073709551615',
    r(null, '18446744073709551615', null),
  ),
  hls('2^64', '2^64 is not.', '/steer?_HLS_throughput=18446744073709551616', r(null, null, null)),
  hls(
    'plus-is-not-space',
    '"+" is not a space and not a sign.',
    '/steer?_HLS_pathway=cdn+a&_HLS_throughput=+5',
    r(null, null, null),
  ),
  hls(
    'fragment',
    'The target is cut at its first "#".',
    '/steer?_HLS_pathway=cdn-a#&_HLS_throughput=5',
    r(0, null, null),
  ),
  hls(
    'second-question-mark',
    'The query follows the first "?"; a later "?" is a character of a part.',
    '/steer?x=1?_HLS_pathway=cdn-a&_HLS_throughput=5',
    r(null, '5', null),
  ),
  hls(
    'dash-parameters-not-read',
    'An HLS request: the _DASH_ parameters are not read.',
    '/steer?_DASH_pathway=cdn-a&_DASH_throughput=5',
    r(null, null, null),
  ),
  hls(
    'names-are-bytes',
    'Names are compared as bytes: _hls_pathway and cmcd are other names.',
    '/steer?_hls_pathway=cdn-a&cmcd=bl%3D5',
    r(null, null, null),
  ),
  hls(
    'quote-at-one-end',
    'A value is unquoted only when it begins and ends with a double quote.',
    '/steer?_HLS_pathway=%22cdn-a',
    r(null, null, null),
  ),
  hls(
    'throughput-not-unquoted',
    'Only pathway values are unquoted.',
    '/steer?_HLS_throughput=%225000%22',
    r(null, null, null),
  ),
  hls(
    'empty-throughput',
    'An empty value is not an integer.',
    '/steer?_HLS_throughput=',
    r(null, null, null),
  ),
  hls(
    'invalid-throughput-cmcd-mtp',
    'A throughput that does not read is absent, and then CMCD mtp gives T.',
    '/steer?_HLS_throughput=abc',
    r(null, '2000000', null),
    { 'cmcd-request': 'mtp=2000' },
  ),

  hls(
    'doubled-quotes',
    'One double quote is removed at each end, not all of them.',
    '/steer?_HLS_pathway=%22%22cdn-a%22%22',
    r(null, null, null),
  ),
  hls(
    'encoded-ampersand-in-value',
    'A part is cut at "&" before it is decoded: %26 and %3D are bytes of its value.',
    '/steer?_HLS_pathway=cdn-a%26x%3D1',
    r(null, null, null),
  ),
  hls(
    'encoded-equals-in-name',
    'A part is cut at its first "=" before it is decoded: a name with %3D is another name.',
    '/steer?_HLS_pathway%3Dcdn-a&_HLS_throughput=5',
    r(null, '5', null),
  ),
  hls(
    'percent-at-end',
    'A "%" at the end of a part is not followed by two hexadecimal digits: the part is skipped.',
    '/steer?_HLS_pathway=cdn-a%&_HLS_pathway=cdn-c',
    r(2, null, null),
  ),
  hls(
    'zero-throughput',
    '0 is an integer, and present.',
    '/steer?_HLS_throughput=0',
    r(null, '0', null),
  ),
  hls(
    '20-nines',
    '20 digits above 2^64 − 1 are not an integer.',
    '/steer?_HLS_throughput=99999999999999999999',
    r(null, null, null),
  ),
  hls(
    'minus-zero-throughput',
    'A sign is not a digit.',
    '/steer?_HLS_throughput=-0',
    r(null, null, null),
  ),
  hls(
    'non-ascii-target',
    'A request target is taken as its UTF-8 bytes; a part that is not read does not matter.',
    '/steer?_HLS_pathway=cdn-a&x=é&_HLS_throughput=5',
    r(0, '5', null),
  ),

  // ---- DASH (§4.3): ETSI TS 103 998 clause 7 and real players.
  dash(
    'spec-quoted-list',
    'The clause: a quoted comma-separated list, and the throughputs in the same order.',
    '/steer?_DASH_pathway="cdn-a,cdn-b"&_DASH_throughput=5000000,3000000',
    r(0, '5000000', null),
  ),
  dash(
    'spec-unquoted',
    "The clause's own example writes the pathway without quotes.",
    '/steer?_DASH_pathway=cdn-b&_DASH_throughput=2000000',
    r(1, '2000000', null),
  ),
  dash(
    'dash.js',
    'dash.js 5: the list quoted and URL-encoded, an empty throughput item where unknown.',
    '/v1/steer/dash?room=conf&_DASH_pathway=%22cdn-a%2Ccdn-b%22&_DASH_throughput=450000%2C',
    r(0, '450000', null),
  ),
  dash(
    'dash.js-first-item-unknown',
    'The first item names no pathway: c is the second, and T the second throughput (position j = 1).',
    '/v1/steer/dash?room=conf&_DASH_pathway=%22cdn-x%2Ccdn-b%22&_DASH_throughput=%2C3200000',
    r(1, '3200000', null),
  ),
  dash(
    'dash.js-throughput-unknown-at-j',
    'The item at position j is empty: no T.',
    '/v1/steer/dash?room=conf&_DASH_pathway=%22cdn-x%2Ccdn-b%22&_DASH_throughput=450000%2C',
    r(1, null, null),
  ),
  dash(
    'dash.js-cmcd-v2-query',
    'dash.js with CMCD v2 in the query on a steering request (ot=o): bl as an inner list with an object-type parameter.',
    `/v1/steer/dash?room=conf&_DASH_pathway=%22cdn-a%22&_DASH_throughput=5200000&CMCD=bl%3D(21300%3Bv)%2Cbr%3D(3200%3Bv)%2Cmtp%3D(25400%3Bv)%2Cot%3Do%2Csf%3Dd${SID}%2Cst%3Dl%2Cv%3D2`,
    r(0, '5200000', '21300'),
  ),
  dash(
    'dash.js-cmcd-v2-inner-lists-least',
    'Inner lists of two object types: the least of each (the buffer that runs out first, the slowest measurement); no _DASH_throughput, so T is mtp × 1000.',
    '/v1/steer/dash?_DASH_pathway=%22cdn-c%22&CMCD=bl%3D(21300%3Bv%204000%3Ba)%2Cmtp%3D(25400%3Bv%2018000%3Ba)%2Cot%3Do',
    r(2, '18000000', '4000'),
  ),
  dash(
    'dash.js-cmcd-v2-header',
    'dash.js with CMCD in the headers; an empty _DASH_throughput gives no T, so mtp does.',
    '/v1/steer/dash?_DASH_pathway=%22cdn-b%22&_DASH_throughput=',
    r(1, '6400000', '8000'),
    {
      'cmcd-request': 'bl=(8000;v 9000;a),mtp=(6400;v)',
      'cmcd-object': 'ot=o',
      'cmcd-session': 'sid="x",v=2',
    },
  ),
  dash(
    'shaka',
    'shaka-player: one unquoted pathway.',
    '/v1/steer/dash?room=conf&_DASH_pathway=cdn-a&_DASH_throughput=4194304',
    r(0, '4194304', null),
  ),
  dash(
    'shaka-first-request',
    'shaka-player sends nothing before its first manifest.',
    '/v1/steer/dash?room=conf',
    r(null, null, null),
  ),
  dash(
    'video.js',
    'video.js (VHS) through URLSearchParams: one unquoted pathway.',
    '/v1/steer/dash?room=conf&_DASH_pathway=cdn-c&_DASH_throughput=6291456',
    r(2, '6291456', null),
  ),
  dash(
    'no-matching-pathway-position-0',
    'No item names a pathway: no c, and T is the item at position 0.',
    '/steer?_DASH_pathway=%22cdn-x%2Ccdn-y%22&_DASH_throughput=100%2C200',
    r(null, '100', null),
  ),
  dash(
    'items-not-trimmed',
    'Items are not trimmed: " cdn-b" is not cdn-b.',
    '/steer?_DASH_pathway=%22cdn-x%2C%20cdn-b%22&_DASH_throughput=100%2C200',
    r(null, '100', null),
  ),
  dash(
    'no-item-at-j-cmcd-mtp',
    'No throughput item at position j: §4.3 gives no T, and CMCD mtp does.',
    '/steer?_DASH_pathway=%22cdn-x%2Ccdn-b%22&_DASH_throughput=100&CMCD=mtp%3D2500',
    r(1, '2500000', null),
  ),
  dash(
    'empty-quoted-list',
    'An empty quoted list names no pathway: T is the item at position 0.',
    '/steer?_DASH_pathway=%22%22&_DASH_throughput=300',
    r(null, '300', null),
  ),
  dash(
    'first-part-wins',
    'Of two _DASH_pathway parts the first is read, though it names no pathway.',
    '/steer?_DASH_pathway=cdn-x&_DASH_pathway=cdn-b&_DASH_throughput=1,2',
    r(null, '1', null),
  ),
  dash(
    'hls-parameters-not-read',
    'A DASH request: the _HLS_ parameters are not read.',
    '/steer?_HLS_pathway=cdn-a&_HLS_throughput=5',
    r(null, null, null),
  ),

  // ---- CMCD (§4.4): RFC 9651 Dictionaries as C9 reads them.
  cmcd(
    'tab-at-end-header',
    'A trailing tab is not discarded: the value does not parse.',
    '/steer',
    r(null, null, null),
    {
      'cmcd-request': 'bl=300\t',
    },
  ),
  cmcd(
    'tab-at-end-query',
    'The same in the query.',
    '/steer?CMCD=bl%3D300%09',
    r(null, null, null),
  ),
  cmcd(
    'tab-inside-is-ows',
    'A tab after a comma is RFC 9651 OWS inside the Dictionary.',
    '/steer',
    r(null, '20000', '300'),
    { 'cmcd-request': 'bl=300,\tmtp=20' },
  ),
  cmcd('spaces-at-ends', 'Leading and trailing SP are discarded.', '/steer', r(null, null, '300'), {
    'cmcd-request': '  bl=300  ',
  }),
  cmcd(
    'byte-sequence',
    'A valid Byte Sequence beside bl.',
    '/steer?CMCD=bl%3D300%2Cx%3D%3AaGVsbG8%3D%3A',
    r(null, null, '300'),
  ),
  cmcd(
    'byte-sequence-padding-supplied',
    'Missing padding is supplied.',
    '/steer',
    r(null, null, '300'),
    { 'cmcd-request': 'bl=300,x=:aGVsbG8:' },
  ),
  cmcd(
    'byte-sequence-one-of-two-pads',
    'One "=" of two: the other is supplied.',
    '/steer',
    r(null, null, '300'),
    { 'cmcd-request': 'bl=300,x=:aA=:' },
  ),
  cmcd(
    'byte-sequence-length-1-mod-4',
    'A length of 1 mod 4 is not base64: the value does not parse.',
    '/steer',
    r(null, null, null),
    { 'cmcd-request': 'bl=300,x=:aGVsbG8xa:' },
  ),
  cmcd(
    'byte-sequence-inner-equals',
    'An "=" inside is not base64.',
    '/steer',
    r(null, null, null),
    { 'cmcd-request': 'bl=300,x=:aG=sbG8=:' },
  ),
  cmcd('byte-sequence-empty', '"::" is an empty Byte Sequence.', '/steer', r(null, null, '300'), {
    'cmcd-request': 'bl=300,x=::',
  }),
  cmcd(
    'duplicate-keys-last-wins',
    'RFC 9651: the last value of a key wins.',
    '/steer',
    r(null, null, '200'),
    {
      'cmcd-request': 'bl=100,bl=200',
    },
  ),
  cmcd('minus-zero', '-0 is 0.', '/steer', r(null, null, '0'), { 'cmcd-request': 'bl=-0' }),
  cmcd('negative', 'A negative Integer is absent.', '/steer', r(null, null, null), {
    'cmcd-request': 'bl=-5,mtp=-1',
  }),
  cmcd('decimal', 'A Decimal is absent.', '/steer', r(null, null, null), {
    'cmcd-request': 'bl=300.0',
  }),
  cmcd(
    'integer-with-parameters',
    'An Integer with parameters is read.',
    '/steer',
    r(null, null, '300'),
    {
      'cmcd-request': 'bl=300;ot=v',
    },
  ),
  cmcd(
    'inner-list-parameters-ignored',
    'Parameters on an Inner List are ignored; the least member.',
    '/steer',
    r(null, null, '200'),
    { 'cmcd-request': 'bl=(300 200);x=1' },
  ),
  cmcd(
    'inner-list-non-integer',
    'An Inner List with a member that is not an Integer ≥ 0: absent.',
    '/steer',
    r(null, null, null),
    { 'cmcd-request': 'bl=(300 1.5)' },
  ),
  cmcd('empty-inner-list', 'An empty Inner List: absent.', '/steer', r(null, null, null), {
    'cmcd-request': 'bl=()',
  }),
  cmcd('string-value', 'A String: absent.', '/steer', r(null, null, null), {
    'cmcd-request': 'bl="300"',
  }),
  cmcd('token-value', 'A Token: absent.', '/steer', r(null, null, null), {
    'cmcd-request': 'bl=abc',
  }),
  cmcd('bare-key', 'A bare key is Boolean true: absent.', '/steer', r(null, null, null), {
    'cmcd-request': 'bl',
  }),
  cmcd('date-before-bl', 'A Date anywhere in the value parses.', '/steer', r(null, null, '5000'), {
    'cmcd-request': 'ts=@1767225600,bl=5000',
  }),
  cmcd('display-string', 'A Display String parses.', '/steer', r(null, null, '5000'), {
    'cmcd-request': 'bl=5000,n=%"caf%c3%a9"',
  }),
  cmcd(
    'non-ascii',
    'A value with a non-ASCII byte does not parse.',
    '/steer',
    r(null, null, null),
    {
      'cmcd-request': 'bl=5000,n="café"',
    },
  ),
  cmcd(
    'mtp-largest',
    'The largest RFC 9651 Integer × 1000 fits a u64.',
    '/steer',
    r(null, '999999999999999000', null),
    { 'cmcd-request': 'mtp=999999999999999' },
  ),
  cmcd(
    'integer-16-digits',
    'RFC 9651 Integers have at most 15 digits.',
    '/steer',
    r(null, null, null),
    {
      'cmcd-request': 'bl=1000000000000000',
    },
  ),
  cmcd('other-shards-not-read', 'Only CMCD-Request is read.', '/steer', r(null, null, null), {
    'cmcd-object': 'bl=5000',
    'cmcd-status': 'mtp=100',
  }),
  cmcd(
    'header-name-any-case',
    'The header is looked up by name case-insensitively.',
    '/steer',
    r(null, null, '5000'),
    {
      'CMCD-Request': 'bl=5000',
    },
  ),
  cmcd(
    'invalid-dictionary',
    'Two commas: the value does not parse, neither key.',
    '/steer',
    r(null, null, null),
    {
      'cmcd-request': 'bl=5000,,mtp=1',
    },
  ),
  cmcd(
    'percent-encoded-name',
    'The name CMCD percent-encoded is CMCD.',
    '/steer?%43MCD=bl%3D800',
    r(null, null, '800'),
  ),
  cmcd(
    'second-cmcd-part-after-a-dropped-one',
    'A CMCD part dropped for a bad "%": the next CMCD part is the first.',
    '/steer?CMCD=bl%3D1%ZZ&CMCD=bl%3D2',
    r(null, null, '2'),
    { 'cmcd-request': 'bl=9000' },
  ),
  cmcd(
    'non-ascii-in-query',
    'A query value that decodes to a non-ASCII byte does not parse.',
    '/steer?CMCD=bl%3D5%2Cn%3D%22%C3%A9%22',
    r(null, null, null),
  ),
  cmcd(
    'percent-encoded-key',
    'The query value is percent-decoded first.',
    '/steer?CMCD=%62l%3D700',
    r(null, null, '700'),
  ),
];
