import { Refusal } from '@wai-steering/wire';
import { describe, expect, it } from 'vitest';
import { type Accepted, outcomeJson, type Refused } from '../src/index.js';
import { refused, refusedBy } from '../src/outcome.js';

describe('refused (C7, C9: where holds pathway and record only where the place has them)', () => {
  it('gives evidence its pathway and record, 0 when not given', () => {
    expect(refused('evidence_mismatch', 'evidence', 2, 5)).toEqual({
      outcome: 'refuse',
      reason: 'evidence_mismatch',
      where: { at: 'evidence', pathway: 2, record: 5 },
    });
    expect(refused('record_missing', 'evidence').where).toEqual({
      at: 'evidence',
      pathway: 0,
      record: 0,
    });
  });

  it('gives pathway its pathway only, and every other place nothing more', () => {
    expect(refused('unknown_preferred', 'pathway', 1, 9).where).toEqual({
      at: 'pathway',
      pathway: 1,
    });
    for (const at of ['room', 'policy', 'decision', 'output', 'manifest'] as const) {
      expect(refused('malformed', at, 3, 4).where).toEqual({ at });
    }
  });

  it("takes a wire refusal's reason, not its reader's place", () => {
    const r = new Refusal('truncated', { magic: 'WSD1', field: 'sig', offset: 12 });
    expect(refusedBy(r, 'decision')).toEqual({
      outcome: 'refuse',
      reason: 'truncated',
      where: { at: 'decision' },
    });
  });
});

describe('outcomeJson (C8)', () => {
  it("writes an accepted outcome's members in C8's order, whatever the object's order", () => {
    const shuffled = {
      uri: 'https://s.example/d/ab',
      pathways: [
        {
          limits: { capacity: false, quality: true, latency: false },
          delivery: '20',
          joules: '10',
          class: 4,
          status: 'figure',
          id: 'cdn-a',
        },
      ],
      manifest: '{"VERSION":1}',
      reason: 'rank',
      ttl: 300,
      priority: ['cdn-a'],
      digest: 'ab',
      outcome: 'accept',
    } as unknown as Accepted;
    expect(outcomeJson(shuffled)).toBe(
      '{"outcome":"accept","digest":"ab","priority":["cdn-a"],"ttl":300,"reason":"rank",' +
        '"pathways":[{"id":"cdn-a","status":"figure","class":4,"joules":"10","delivery":"20",' +
        '"limits":{"latency":false,"quality":true,"capacity":false}}],' +
        '"manifest":"{\\"VERSION\\":1}","uri":"https://s.example/d/ab"}',
    );
  });

  it('writes a refusal with only the members its place has, and nothing else', () => {
    const extra = {
      where: { record: 3, pathway: 2, at: 'room' },
      reason: 'room_invalid',
      outcome: 'refuse',
      note: 'not C8',
    } as unknown as Refused;
    expect(outcomeJson(extra)).toBe(
      '{"outcome":"refuse","reason":"room_invalid","where":{"at":"room"}}',
    );
    const evidence = { outcome: 'refuse', reason: 'record_missing', where: { at: 'evidence' } };
    expect(outcomeJson(evidence as Refused)).toBe(
      '{"outcome":"refuse","reason":"record_missing","where":{"at":"evidence","pathway":0,"record":0}}',
    );
    expect(outcomeJson(refused('unknown_preferred', 'pathway', 4))).toBe(
      '{"outcome":"refuse","reason":"unknown_preferred","where":{"at":"pathway","pathway":4}}',
    );
  });
});
