// The conformance corpus in CI: it regenerates byte for byte; every request gives its report and
// every vector its outcome, reason, place and facts; every reason of companion C7 is covered; the
// reason codes of the code are C7's and energy-steering §10's; and every single-byte mutation of
// an accepted vector's policy, decision, named records and manifest is refused.
import { readFileSync } from 'node:fs';
import { nobleBackend, REASONS } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { describe, expect, it } from 'vitest';
import { generateCorpus, serializeCorpus, VECTORS_PATH } from '../src/generate.js';
import {
  checkFacts,
  coveredReasons,
  loadCorpus,
  mutate,
  mutationSummary,
  reasonLists,
  runFile,
} from '../src/run.js';

const corpus = loadCorpus(VECTORS_PATH);

describe('conformance/vectors.json', () => {
  it('regenerates byte for byte from the generator', () => {
    const text = serializeCorpus(generateCorpus());
    const committed = readFileSync(VECTORS_PATH, 'utf8');
    // Compared as strings: a difference is reported without printing 2 MB.
    expect(text.length).toBe(committed.length);
    expect(text === committed).toBe(true);
    expect(text.endsWith('}\n')).toBe(true);
  });

  it('has the shape other implementations read', () => {
    expect(corpus.version).toBe(1);
    for (const r of corpus.requests) {
      expect(Object.keys(r)).toEqual(
        expect.arrayContaining(['name', 'policy', 'request', 'report']),
      );
    }
    for (const v of corpus.vectors) {
      expect(Object.keys(v)).toEqual(
        expect.arrayContaining([
          'name',
          'room',
          'key_log',
          'policy',
          'decision',
          'records',
          'manifest',
          'hls_tag',
          'dash_element',
          'outcome',
        ]),
      );
    }
    expect(new Set(corpus.vectors.map((v) => v.name)).size).toBe(corpus.vectors.length);
  });

  it('gives every request its report and every vector its outcome (the verifier runner)', () => {
    for (const backend of [nobleBackend, nodeBackend]) {
      const result = runFile(corpus, backend);
      expect(result.failures).toEqual([]);
      expect(result.requests.passed).toBe(corpus.requests.length);
      expect(result.vectors.passed).toBe(corpus.vectors.length);
    }
    const result = runFile(corpus);
    console.log(
      `conformance: ${result.requests.total} requests, ${result.vectors.total} vectors ` +
        `(${result.vectors.accepted} accepted, ${result.vectors.refused} refused), ` +
        `${result.reasons.length} reasons covered`,
    );
  });

  it('gives every vector the reason, place and facts stated by hand', () => {
    const { failures, outcomes } = checkFacts(corpus);
    expect(failures).toEqual([]);
    for (const v of corpus.vectors) expect(outcomes.get(v.name)).toEqual(v.outcome);
  });

  it('covers every reason of companion C7 with a refused vector', () => {
    const covered = coveredReasons(corpus);
    expect(REASONS.filter((r) => !covered.has(r))).toEqual([]);
    expect([...covered].every((r) => (REASONS as readonly string[]).includes(r))).toBe(true);
  });

  it("lists exactly C7's reason codes in the code, and §10's with those it reuses", () => {
    const lists = reasonLists();
    expect(lists.c7).toHaveLength(30);
    expect(lists.code).toEqual(lists.c7);
    expect([...lists.section10].sort()).toEqual([...lists.c7].sort());
    // §10's "live-rooms §9.1's codes for the room" are C7's live-rooms row.
    expect(lists.room.section10).toEqual(lists.room.c7);
    expect(lists.room.c7).toHaveLength(6);
  });

  // Some thousands of verifications on one thread: a ceiling for a machine whose cores are busy.
  it('refuses every single-byte mutation of the accepted vectors', { timeout: 900_000 }, () => {
    const m = mutate(corpus, { positions: 16, backend: nodeBackend });
    console.log(mutationSummary(m));
    expect(m.accepted).toEqual([]);
    expect(m.tried).toBeGreaterThan(5000);
    expect(m.refused).toBe(m.tried);
  });
});
