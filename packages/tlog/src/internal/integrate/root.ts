// The last step of an integration: the root of the new size, from the edge.
import type { CryptoBackend } from '@wai-steering/wire';
import { emptyRoot } from '../../merkle.js';
import { foldRight } from '../hash.js';
import type { Subtree } from './edge.js';

/**
 * RFC 6962 MTH of the log whose edge has `levels`: the complete subtrees of [0, size), from the
 * top level down, left to right, folded.
 */
export function rootOfEdge(
  levels: readonly { readonly stack: readonly Subtree[] }[],
  backend: CryptoBackend,
): Uint8Array {
  const subtrees: Uint8Array[] = [];
  for (let level = levels.length - 1; level >= 0; level--) {
    for (const t of levels[level]!.stack) subtrees.push(t.hash);
  }
  return subtrees.length === 0 ? emptyRoot(backend) : foldRight(subtrees, backend);
}
