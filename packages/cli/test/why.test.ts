// Why a pathway has no figure (`noFigure`): stale hop by hop, unmetered by its unmetered hops,
// mixed by its classes, empty by the joules its records hold; none for a figure. Over the worked
// example's records (P = 2 s, W = 4 s, L = 500 ms; at t = 10.5 s the window is [6 s, 10 s)).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EvidenceRecord } from '@wai-steering/evidence';
import {
  digestOf,
  type HopRecordFields,
  jwkToKeyPair,
  type Policy,
  readHopRecord,
  readPolicy,
  signHopRecord,
  toHex,
  unwrap,
} from '@wai-steering/wire';
import { beforeAll, describe, expect, it } from 'vitest';
import { evidenceOf } from '../src/internal/stale.js';
import { joulesText, noFigure, noFigureText } from '../src/internal/why.js';
import { buildExample, RECORDS } from './example.js';
import { tempDir } from './helpers.js';

let dir: string;
let policy: Policy;
let records: EvidenceRecord[];
const T = 10_500_000n;

beforeAll(async () => {
  dir = tempDir();
  await buildExample(dir);
  policy = unwrap(readPolicy(new Uint8Array(readFileSync(join(dir, 'policy.wsp')))));
  records = evidenceOf(
    RECORDS.map(
      ([hop, start]) =>
        new Uint8Array(readFileSync(join(dir, 'records', `${hop}-${start / 1_000_000}s.wmh`))),
    ),
  );
});

/** The example's record of `hop` starting at `start` s, signed again with `change` applied. */
function resigned(hop: string, start: number, change: Partial<HopRecordFields>): EvidenceRecord {
  const key = jwkToKeyPair(JSON.parse(readFileSync(join(dir, `hop-${hop}.jwk`), 'utf8')));
  const held = records.find(
    (r) => toHex(r.record.hop) === toHex(key.publicKey) && r.record.start === BigInt(start * 1e6),
  )!;
  const {
    sig: _s,
    body: _b,
    ...fields
  } = held.record as typeof held.record & {
    sig: unknown;
    body: unknown;
  };
  const bytes = signHopRecord({ ...fields, ...change }, key.secretKey!);
  const record = unwrap(readHopRecord(bytes));
  return { record, digest: digestOf(record) };
}

function swap(out: readonly [string, number][], add: EvidenceRecord[]): EvidenceRecord[] {
  const drop = new Set(out.map(([h, s]) => `${h}-${s}`));
  return [
    ...records.filter((_, i) => !drop.has(`${RECORDS[i]![0]}-${RECORDS[i]![1] / 1_000_000}`)),
    ...add,
  ];
}

describe('noFigure', () => {
  it('says nothing of pathways with a figure', () => {
    expect(noFigure(policy, T, records)).toEqual([]);
  });

  it('stale: the hop and the period it has no record of', () => {
    const why = noFigure(policy, T, swap([['b-edge', 8]], []));
    expect(why.map((w) => [w.id, w.status])).toEqual([['cdn-b', 'stale']]);
    expect(why[0]!.text).toMatch(
      /^cdn-b: hop 1 \(edge 1166849a[0-9a-f]{56}\): no record for 1970-01-01T00:00:08\.000Z \(8000000 µs\) to 1970-01-01T00:00:10\.000Z \(10000000 µs\); window /,
    );
    // A stale line does not repeat its fix under every hop.
    expect(noFigureText(why)[0]).toBe(`stale    ${why[0]!.text}`);
  });

  it('unmetered: the hops that signed the unmetered marker', () => {
    const marker = { class: 0, joules: 0n };
    const why = noFigure(policy, T, swap([['c-edge', 6]], [resigned('c-edge', 6, marker)]));
    expect(why.map((w) => [w.id, w.status])).toEqual([['cdn-b-eu', 'unmetered']]);
    expect(why[0]!.text).toMatch(
      /^cdn-b-eu: hop 1 \(edge a3f0ee03[0-9a-f]{56}\) signed the unmetered marker/,
    );
    expect(noFigureText(why)[0]).toBe(`unmetered ${why[0]!.text}: ${why[0]!.fix}`);
  });

  it('mixed: the classes of each hop', () => {
    const model = { class: 2 };
    const why = noFigure(
      policy,
      T,
      swap(
        [
          ['a-mid', 6],
          ['a-mid', 8],
        ],
        [resigned('a-mid', 6, model), resigned('a-mid', 8, model)],
      ),
    );
    expect(why.map((w) => [w.id, w.status])).toEqual([['cdn-a', 'mixed']]);
    expect(why[0]!.text).toMatch(
      /hop 1 \(edge [0-9a-f]{64}\) OnChipCounter; hop 2 \(interior [0-9a-f]{64}\) ModelBased/,
    );
  });

  it('empty: the joules its records hold, and no delivery from its edge', () => {
    const noTraffic = { tracks: [] };
    const why = noFigure(
      policy,
      T,
      swap(
        [
          ['b-edge', 6],
          ['b-edge', 8],
        ],
        [resigned('b-edge', 6, noTraffic), resigned('b-edge', 8, noTraffic)],
      ),
    );
    expect(why.map((w) => [w.id, w.status])).toEqual([['cdn-b', 'empty']]);
    // 1 000 000 µJ a period, two periods: 2 J.
    expect(why[0]!.text).toMatch(
      /^cdn-b: its records state 2 J over the window \(4 s\), but its edge hops' records state no media bytes sent out/,
    );
    expect(why[0]!.fix).toMatch(/traffic: none, the default, states no traffic/);
  });
});

describe('joulesText', () => {
  it('writes µJ as joules, with up to three decimals, cut not rounded', () => {
    expect([joulesText(71_000_000n), joulesText(250_000n), joulesText(1_999_999n)]).toEqual([
      '71 J',
      '0.25 J',
      '1.999 J',
    ]);
  });
});
