/**
 * Key log heads move forward (companion C4: each head names the previous one's digest, `seq` one
 * more). A head read again (SIGHUP) is taken only if its `seq` is greater than the head in use
 * and its `prev` is the digest of the head in use; anything else (an older head put back, a
 * fork) is refused and the head in use stays. At start the configured head is checked against
 * the newest head the store kept: the same head, or one that follows it; a head more than one
 * `seq` ahead is taken with a warning (the heads between were not seen, so the chain cannot be
 * checked), an older one or another of the same `seq` is refused.
 */
import { bytesEqual, type KeyLog, toHex } from '@wai-steering/wire';

/** A head and its digest (C1). */
export interface Head {
  readonly head: KeyLog;
  readonly digest: Uint8Array;
}

/** What the check says: take it (with a warning, maybe), keep the one in use, or refuse. */
export type HeadStep =
  | { readonly take: true; readonly warning?: string }
  | { readonly take: false; readonly same: true }
  | { readonly take: false; readonly same: false; readonly why: string };

/**
 * Whether `next` may replace `current`. `gap: 'refuse'` (SIGHUP) takes only the head that follows
 * `current`; `gap: 'warn'` (start) also takes a later head, with a warning.
 */
export function stepHead(current: Head, next: Head, gap: 'refuse' | 'warn'): HeadStep {
  const cur = current.head.seq;
  const seq = next.head.seq;
  if (bytesEqual(current.digest, next.digest)) return { take: false, same: true };
  if (seq <= cur) {
    return {
      take: false,
      same: false,
      why: `its seq ${seq} is not after the head in use (seq ${cur}, ${toHex(current.digest).slice(0, 16)}…): a key log head never moves back`,
    };
  }
  if (bytesEqual(next.head.prev, current.digest)) return { take: true };
  if (gap === 'warn' && seq > cur + 1n) {
    return {
      take: true,
      warning: `the key log head (seq ${seq}) is ${seq - cur} heads after the one the store kept (seq ${cur}): the heads between were not seen, so its chain was not checked`,
    };
  }
  return {
    take: false,
    same: false,
    why: `its prev is not the digest of the head in use (seq ${cur}, ${toHex(current.digest).slice(0, 16)}…): a new head names the head before it`,
  };
}
