// The root kept between chunks against `@wai-steering/tlog`'s `rootOf` over all the leaves, with
// one sha256 call a hash and with the WebAssembly batch hashing.
import { leafHash, rootOf, wasmTreeHashing } from '@wai-steering/tlog';
import { nodeBackend } from '@wai-steering/wire/node';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RootBuilder } from '../../src/internal/root.js';

const batching = { ...nodeBackend, ...(await wasmTreeHashing()) };

describe('RootBuilder', () => {
  it('gives the root rootOf gives, at every size along the way, however the entries are cut', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.uint8Array({ minLength: 40, maxLength: 40 }), { maxLength: 40 }), {
          maxLength: 12,
        }),
        fc.boolean(),
        (chunks, wasm) => {
          const b = new RootBuilder(wasm ? batching : nodeBackend);
          const leaves: Uint8Array[] = [];
          expect(b.root()).toEqual(rootOf([], nodeBackend));
          for (const chunk of chunks) {
            b.add(chunk);
            for (const e of chunk) leaves.push(leafHash(e, nodeBackend));
            expect(b.root()).toEqual(rootOf(leaves, nodeBackend));
          }
          expect(b.size).toEqual(BigInt(leaves.length));
        },
      ),
      { numRuns: 100 },
    );
  });

  it('gives the root of a log of 70,000 entries in chunks of 26,214, as one sha256 call a hash', () => {
    const entries = Array.from({ length: 70_000 }, (_, i) => {
      const e = new Uint8Array(40);
      new DataView(e.buffer).setUint32(0, i * 2654435761, true);
      return e;
    });
    const a = new RootBuilder(batching);
    for (let i = 0; i < entries.length; i += 26_214) a.add(entries.slice(i, i + 26_214));
    expect(a.root()).toEqual(
      rootOf(
        entries.map((e) => leafHash(e, nodeBackend)),
        nodeBackend,
      ),
    );
  });
});
