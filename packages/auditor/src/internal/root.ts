// RFC 6962 §2.1: the root of a tree whose leaves come one at a time, in memory of its height.
// `@wai-steering/tlog`'s `rootOf` takes every leaf hash at once; an archive's log has millions of
// entries read from a file a chunk at a time, so the same stack is kept here between chunks (the
// tests hold it to `rootOf`).

import { emptyRoot } from '@wai-steering/tlog';
import type { CryptoBackend } from '@wai-steering/wire';

/** MTH(D[n]) of leaves given one at a time: a stack of complete subtrees, merged as they fill. */
export class RootBuilder {
  private readonly stack: Uint8Array[] = [];
  /** The inputs of RFC 6962's two hashes, reused: 0x00 ‖ entry, and 0x01 ‖ left ‖ right. */
  private leafInput = new Uint8Array(41);
  private readonly nodeInput = new Uint8Array(65);
  /** Leaves given. */
  size = 0n;

  constructor(private readonly backend: CryptoBackend) {
    this.nodeInput[0] = 0x01;
  }

  /** Appends the leaf of `entry` (its bytes; the leaf hash is taken here). */
  add(entry: Uint8Array): void {
    if (this.leafInput.length !== entry.length + 1)
      this.leafInput = new Uint8Array(entry.length + 1);
    this.leafInput.set(entry, 1);
    let node = this.backend.sha256(this.leafInput);
    // Merge while the count of leaves before this one has a 1 in the place just completed.
    for (let n = this.size; (n & 1n) === 1n; n >>= 1n) node = this.node(this.stack.pop()!, node);
    this.stack.push(node);
    this.size++;
  }

  /** RFC 6962 §2.1: SHA-256(0x01 ‖ left ‖ right). */
  private node(left: Uint8Array, right: Uint8Array): Uint8Array {
    this.nodeInput.set(left, 1);
    this.nodeInput.set(right, 33);
    return this.backend.sha256(this.nodeInput);
  }

  /** The root of the leaves given so far. */
  root(): Uint8Array {
    if (this.stack.length === 0) return emptyRoot(this.backend);
    let h = this.stack[this.stack.length - 1]!;
    for (let i = this.stack.length - 2; i >= 0; i--) h = this.node(this.stack[i]!, h);
    return h;
  }
}
