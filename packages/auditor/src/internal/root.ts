// RFC 6962 §2.1: the root of a tree whose leaves come one at a time, in memory of its height.
// `@wai-steering/tlog`'s `rootOf` takes every leaf hash at once; an archive's log has millions of
// entries read from a file a chunk at a time, so the same stack is kept here between chunks (the
// tests hold it to `rootOf`).

import { emptyRoot, leafHash, nodeHash } from '@wai-steering/tlog';
import type { CryptoBackend } from '@wai-steering/wire';

/** MTH(D[n]) of leaves given one at a time: a stack of complete subtrees, merged as they fill. */
export class RootBuilder {
  private readonly stack: Uint8Array[] = [];
  /** Leaves given. */
  size = 0n;

  constructor(private readonly backend: CryptoBackend) {}

  /** Appends the leaf of `entry` (its bytes; the leaf hash is taken here). */
  add(entry: Uint8Array): void {
    let node = leafHash(entry, this.backend);
    // Merge while the count of leaves before this one has a 1 in the place just completed.
    for (let n = this.size; (n & 1n) === 1n; n >>= 1n) {
      node = nodeHash(this.stack.pop()!, node, this.backend);
    }
    this.stack.push(node);
    this.size++;
  }

  /** The root of the leaves given so far. */
  root(): Uint8Array {
    if (this.stack.length === 0) return emptyRoot(this.backend);
    let h = this.stack[this.stack.length - 1]!;
    for (let i = this.stack.length - 2; i >= 0; i--) h = nodeHash(this.stack[i]!, h, this.backend);
    return h;
  }
}
