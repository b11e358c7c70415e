/**
 * A decision's frame given again: the decisions of an archive are in ascending `t`, so a frame's
 * copy is among the frames of its `t`, and only those are held to find it (their digest and
 * `sig`: the same bytes), at most {@link SAME_T_HELD} of one µs.
 */

/** The frames of one `t` compared for copies, at most; past it, the oldest are forgotten. */
export const SAME_T_HELD = 1 << 16;

function latin1(bytes: Uint8Array): string {
  return String.fromCharCode.apply(null, bytes as unknown as number[]);
}

/** Finds the frames given again, in the file's order. */
export class FrameCopies {
  private t = -1n;
  /** The frames of `t` (digest and `sig`, as a string) and their index. */
  private readonly seen = new Map<string, number>();

  /**
   * The index of the earlier frame `bytes` (digest `digest`, at `t`, index `frame`) is a copy
   * of, or `undefined` when it is the first of its bytes.
   */
  firstOf(digest: Uint8Array, bytes: Uint8Array, frame: number, t: bigint): number | undefined {
    if (t !== this.t) {
      this.seen.clear();
      this.t = t;
    }
    const key = latin1(digest) + latin1(bytes.subarray(Math.max(0, bytes.length - 64)));
    const first = this.seen.get(key);
    if (first !== undefined) return first;
    if (this.seen.size >= SAME_T_HELD) this.seen.delete(this.seen.keys().next().value!);
    this.seen.set(key, frame);
    return undefined;
  }
}
