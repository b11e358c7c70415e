// RFC 6962 §2.1: the root of a tree whose leaves come a chunk at a time, in memory of its right
// edge. `@wai-steering/tlog`'s `rootOf` takes every leaf hash at once; an archive's log has
// millions of entries read from a file a chunk at a time, so each chunk is integrated onto the
// state of the ones before (`integrate`, as a log's writer does; its tiles are not kept), with
// the backend's batch hashing where it has one (the tests hold it to `rootOf`).

import { emptyLogState, emptyRoot, integrate, type TreeHashing } from '@wai-steering/tlog';
import type { CryptoBackend } from '@wai-steering/wire';

/** MTH(D[n]) of entries given a chunk at a time. */
export class RootBuilder {
  private state = emptyLogState();
  private last: Uint8Array | undefined;
  /** Leaves given. */
  size = 0n;

  constructor(private readonly backend: CryptoBackend & Partial<TreeHashing>) {}

  /** Appends the leaves of `entries` (their bytes; the leaf hashes are taken here). */
  add(entries: readonly Uint8Array[]): void {
    if (entries.length === 0) return;
    const step = integrate(this.state, entries, this.backend);
    this.state = step.state;
    this.size = step.size;
    this.last = step.root;
  }

  /** The root of the leaves given so far. */
  root(): Uint8Array {
    return this.last ?? emptyRoot(this.backend);
  }
}
