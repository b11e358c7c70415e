// The root kept between chunks against `@wai-steering/tlog`'s `rootOf` over all the leaves.
import { leafHash, rootOf } from '@wai-steering/tlog';
import { nodeBackend } from '@wai-steering/wire/node';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RootBuilder } from '../../src/internal/root.js';

describe('RootBuilder', () => {
  it('gives the root rootOf gives, at every size along the way', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ minLength: 40, maxLength: 40 }), { maxLength: 70 }),
        (entries) => {
          const b = new RootBuilder(nodeBackend);
          const leaves: Uint8Array[] = [];
          expect(b.root()).toEqual(rootOf([], nodeBackend));
          for (const e of entries) {
            b.add(e);
            leaves.push(leafHash(e, nodeBackend));
            expect(b.root()).toEqual(rootOf(leaves, nodeBackend));
          }
          expect(b.size).toEqual(BigInt(entries.length));
        },
      ),
      { numRuns: 60 },
    );
  });
});
