import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { writeManifest } from '../src/index.js';
import { type P, policyOf } from './helpers/fixtures.js';

const idArb = fc.stringMatching(/^[A-Za-z0-9._-]{1,8}$/);
const unreserved = fc.stringMatching(/^[A-Za-z0-9._~-]{0,6}$/);
// Built once: building a regex arbitrary inside `chain` for every sample is slow.
const hostArb = fc.stringMatching(/^[a-z0-9.-]{0,12}$/);
const namesArb = fc.uniqueArray(fc.stringMatching(/^[a-z]{1,4}$/), { maxLength: 3 });

/** Policies of distinct ids, some pathways clones of an earlier one, with hosts and params. */
const policyArb = fc
  .uniqueArray(idArb, { minLength: 1, maxLength: 8 })
  .chain((ids) =>
    fc.tuple(
      ...ids.map((id, i) =>
        fc.record({
          id: fc.constant(id),
          base:
            i === 0
              ? fc.constant(255)
              : fc.oneof(fc.constant(255), fc.integer({ min: 0, max: i - 1 })),
          host: hostArb,
          params: namesArb.chain((names) =>
            fc.tuple(...names.sort().map((name) => unreserved.map((value) => ({ name, value })))),
          ),
        }),
      ),
    ),
  )
  .map((ps) =>
    policyOf(
      ps.map((p): P => (p.base === 255 ? { id: p.id } : p)),
      {
        reload_uri: 'https://r.example/x?y=1',
      },
    ),
  );

describe('§8.1 (properties)', () => {
  it('the text is JSON with §8.1’s members in order, and no white space outside strings', () => {
    fc.assert(
      fc.property(
        policyArb,
        fc.integer({ min: 1, max: 0xffffffff }),
        fc.nat(),
        (policy, ttl, seed) => {
          const m = policy.pathways.length;
          const priority = Array.from({ length: m }, (_, i) => (i + seed) % m);
          const session = new Uint8Array(16).fill(seed & 0xff);
          const text = writeManifest(policy, { session, ttl, priority }, new Uint8Array(32));
          const json = JSON.parse(text);
          const clones = policy.pathways.filter((p) => p.base !== 255);
          expect(Object.keys(json)).toEqual([
            'VERSION',
            'TTL',
            'RELOAD-URI',
            'PATHWAY-PRIORITY',
            ...(clones.length > 0 ? ['PATHWAY-CLONES'] : []),
            'science.transaction.wai-decision',
          ]);
          expect(json.TTL).toBe(ttl);
          expect(json['PATHWAY-PRIORITY']).toEqual(priority.map((i) => policy.pathways[i]!.id));
          if (clones.length > 0) {
            expect(json['PATHWAY-CLONES']).toEqual(
              clones.map((c) => ({
                'BASE-ID': policy.pathways[c.base]!.id,
                ID: c.id,
                'URI-REPLACEMENT': {
                  ...(c.host !== '' ? { HOST: c.host } : {}),
                  ...(c.params.length > 0
                    ? { PARAMS: Object.fromEntries(c.params.map((q) => [q.name, q.value])) }
                    : {}),
                },
              })),
            );
          }
          // JSON.stringify writes no white space and escapes nothing here: the same bytes.
          expect(JSON.stringify(json)).toBe(text);
        },
      ),
      { numRuns: 500 },
    );
  });
});
