// The console's activity: recent decisions newest first, one sample a second over a bounded
// ring, each hop's ingest tallies, and the records that arrived after their lag.
import { describe, expect, it } from 'vitest';
import { ConsoleActivity } from '../../src/console/activity.js';

const decision = (first: number, reason: number, b = 0) => ({
  digest: new Uint8Array(32).fill(b),
  t: BigInt(b),
  session: new Uint8Array(16),
  first,
  reason,
});

describe('ConsoleActivity', () => {
  it('keeps the recent decisions, newest first, up to its bound', () => {
    const a = new ConsoleActivity(2, { recent: 3 });
    for (let i = 1; i <= 5; i++) a.noteDecision(decision(0, 5, i));
    expect(a.recent().map((d) => Number(d.t))).toEqual([5, 4, 3]);
  });

  it('samples one second at a time: reasons, firsts and loads, oldest first, ring-bounded', () => {
    const a = new ConsoleActivity(2, { samples: 3 });
    a.noteDecision(decision(0, 5));
    a.noteDecision(decision(1, 3));
    a.noteDecision(decision(1, 3));
    a.sample(100, [4, 2]);
    for (let t = 101; t <= 103; t++) a.sample(t, [t - 100, 0]);
    const h = a.history();
    expect(h.t).toEqual([101, 102, 103]);
    expect(h.loads).toEqual([
      [1, 2, 3],
      [0, 0, 0],
    ]);
    expect(a.history(102).t).toEqual([103]);
    // The dropped second held the decisions; a fresh one counts from zero.
    expect(h.decisions.rank).toEqual([0, 0, 0]);
    const b = new ConsoleActivity(2);
    b.noteDecision(decision(1, 3));
    b.sample(7, [0, 1]);
    expect(b.history().decisions.share).toEqual([1]);
    expect(b.history().first).toEqual([[0], [1]]);
    // Firsts over the last seconds, and the current second's.
    b.noteDecision(decision(0, 5));
    expect(b.firstOver(60)).toEqual({ counts: [1, 1], total: 2 });
  });

  it("tallies each hop's records, and the ones that arrived after their lag", () => {
    let now = 10_000_000n;
    const a = new ConsoleActivity(1, { lag: { lagUs: 1_000_000n, now: () => now } });
    const hop = new Uint8Array(32).fill(0xab);
    a.ingested(hop, 'new', { start: 7_500_000n, end: 9_500_000n }); // within its lag
    now = 20_000_000n;
    a.ingested(hop, 'new', { start: 8_000_000n, end: 10_000_000n });
    a.ingested(hop, 'duplicate');
    a.ingested(hop, { refused: 'bad_signature' });
    a.ingested(null, { refused: 'truncated' });
    expect(a.ingest.get('ab'.repeat(32))).toEqual({
      accepted: 2,
      duplicate: 1,
      late: 1,
      refused: new Map([['bad_signature', 1]]),
    });
    expect(a.ingest.get('')?.refused).toEqual(new Map([['truncated', 1]]));
  });
});
