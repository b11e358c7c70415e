import { toHex } from '@wai-steering/wire';
import { describe, expect, it } from 'vitest';
import {
  type Corpus,
  type CorpusVector,
  jsonEqual,
  type Outcome,
  runCorpus,
  verifyDecision,
} from '../src/index.js';
import { decide, makeWorld } from './helpers/world.js';

describe('jsonEqual', () => {
  it('compares objects by their members in any order, arrays in order', () => {
    expect(jsonEqual({ a: 1, b: [1, { c: null }] }, { b: [1, { c: null }], a: 1 })).toBe(true);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(jsonEqual({ a: 1, b: 2 }, { a: 1, c: 2 })).toBe(false);
    expect(jsonEqual([], {})).toBe(false);
    expect(jsonEqual(null, {})).toBe(false);
    expect(jsonEqual('1', 1)).toBe(false);
    expect(jsonEqual({ a: { b: '1' } }, { a: { b: '2' } })).toBe(false);
  });
});

describe('runCorpus (C8)', () => {
  const world = makeWorld();
  const made = decide(world, { pathway: 0, throughput: 5_000_000n, buffer: 10_000n });
  const base = {
    room: toHex(world.room),
    key_log: toHex(world.keyLog),
    policy: toHex(world.policy),
    decision: toHex(made.decision),
    records: world.records.map(toHex),
    manifest: made.manifest,
  };
  const accepted = verifyDecision({
    room: world.room,
    keyLog: world.keyLog,
    policy: world.policy,
    decision: made.decision,
    records: world.records,
    manifest: made.manifest,
  });
  // Independently of the verifier: cdn-b spends the fewest joules per byte (3 against 4 and 6
  // per period), and the policy's initial pathway is cdn-a.
  const hlsTag =
    '#EXT-X-CONTENT-STEERING:SERVER-URI="https://steer.example/steer.json",PATHWAY-ID="cdn-a"';

  const vectors: CorpusVector[] = [
    { name: 'accept', ...base, hls_tag: hlsTag, outcome: accepted },
    {
      name: 'refuse/decision/truncated',
      ...base,
      decision: base.decision.slice(0, 20),
      outcome: { outcome: 'refuse', reason: 'truncated', where: { at: 'decision' } },
    },
    {
      name: 'refuse/evidence/record-missing',
      ...base,
      records: [],
      outcome: {
        outcome: 'refuse',
        reason: 'record_missing',
        where: { at: 'evidence', pathway: 0, record: 0 },
      },
    },
  ];
  const corpus: Corpus = {
    version: 1,
    requests: [
      {
        name: 'hls',
        policy: base.policy,
        request: { protocol: 'hls', target: '/steer?_HLS_pathway="cdn-b"&_HLS_throughput=5000000' },
        report: { pathway: 1, throughput: '5000000', buffer: null },
      },
      {
        name: 'dash',
        policy: base.policy,
        request: {
          protocol: 'dash',
          target: '/steer?_DASH_pathway="cdn-c"',
          headers: { 'CMCD-Request': 'bl=2000' },
        },
        report: { pathway: 2, throughput: null, buffer: '2000' },
      },
    ],
    vectors,
  };

  it('passes a corpus whose every request and vector gives what it states', () => {
    expect(accepted.outcome).toBe('accept');
    if (accepted.outcome === 'accept') expect(accepted.priority[0]).toBe('cdn-b');
    const r = runCorpus(corpus);
    expect(r.failures).toEqual([]);
    expect(r.requests).toEqual({ total: 2, passed: 2 });
    expect(r.vectors).toEqual({ total: 3, passed: 3, accepted: 1, refused: 2 });
    expect(r.reasons).toEqual(['record_missing', 'truncated']);
  });

  it('names each case that does not give what it states', () => {
    const wrongTtl = {
      ...(accepted as Outcome & { outcome: 'accept' }),
      ttl: accepted.outcome === 'accept' ? accepted.ttl + 1 : 0,
    };
    const r = runCorpus({
      version: 1,
      requests: [
        { ...corpus.requests[0]!, report: { pathway: 0, throughput: '5000000', buffer: null } },
        { ...corpus.requests[1]!, name: 'no policy', policy: '00' },
      ],
      vectors: [
        { ...vectors[0]!, outcome: wrongTtl },
        { ...vectors[0]!, name: 'tag', hls_tag: hlsTag.replace('cdn-a', 'cdn-b') },
        {
          ...vectors[1]!,
          outcome: { outcome: 'refuse', reason: 'malformed', where: { at: 'decision' } },
        },
      ],
    });
    expect(r.failures.map((f) => [f.kind, f.name, f.what])).toEqual([
      ['request', 'hls', 'report'],
      ['request', 'no policy', 'policy'],
      ['vector', 'accept', 'outcome'],
      ['vector', 'tag', 'hls_tag'],
      ['vector', 'refuse/decision/truncated', 'outcome'],
    ]);
    expect(r.vectors.passed).toBe(0);
    // A reason is covered only by a refused vector that passed.
    expect(r.reasons).toEqual([]);
  });

  it('throws a TypeError for a field that is not hexadecimal (a corpus that is not C8)', () => {
    expect(() => runCorpus({ ...corpus, vectors: [{ ...vectors[0]!, room: 'zz' }] })).toThrow(
      TypeError,
    );
  });
});
