/**
 * The archive's frames: a file of the archive (`policies.bin`, `records.bin`, `decisions.bin`) is
 * a sequence of frames, each a u32 little-endian length followed by that many bytes of one record
 * (`WSP1`, `WMH1` or `WSD1`). A reader is given the file's bytes in chunks of any size, so that an
 * archive of any length is read in bounded memory.
 */

/** The most bytes one frame may hold (a record of this family is far smaller). */
export const MAX_FRAME = 1 << 24;

/** A frame file that does not read: where it stopped and why. */
export class FrameError extends Error {
  constructor(
    message: string,
    /** The offset in the file of the frame that does not read. */
    readonly offset: number,
  ) {
    super(message);
    this.name = 'FrameError';
  }
}

/** One frame: its bytes prefixed with their u32 little-endian length. */
export function encodeFrame(bytes: Uint8Array): Uint8Array {
  if (!(bytes instanceof Uint8Array)) throw new TypeError('encodeFrame: expected a Uint8Array');
  if (bytes.length === 0) throw new RangeError('encodeFrame: a record is never empty');
  if (bytes.length > MAX_FRAME) throw new RangeError(`encodeFrame: over ${MAX_FRAME} bytes`);
  const out = new Uint8Array(4 + bytes.length);
  new DataView(out.buffer).setUint32(0, bytes.length, true);
  out.set(bytes, 4);
  return out;
}

/** The frames of `records`, one after the other. */
export function encodeFrames(records: Iterable<Uint8Array>): Uint8Array {
  const parts: Uint8Array[] = [];
  let n = 0;
  for (const r of records) {
    const f = encodeFrame(r);
    parts.push(f);
    n += f.length;
  }
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/**
 * An incremental frame reader: `push` it the file's bytes in chunks of any size and it returns
 * the frames they complete; `end` says whether the file ended on a frame's boundary. Each frame
 * returned is its own copy, or a view of a chunk that the caller must not change afterwards.
 *
 * A frame's length is checked before anything is allocated for it: at least 1 (no record is
 * empty), at most {@link MAX_FRAME}, and, when the file's size is given, no more than what is
 * left of the file. Memory is one frame at most beyond the chunk given.
 */
export class FrameReader {
  /** A frame's length as far as it was read (its 4 bytes may straddle chunks). */
  private readonly head = new Uint8Array(4);
  private headFilled = 0;
  /** The frame being filled across chunks, and how much of it is. */
  private frame: Uint8Array | undefined;
  private filled = 0;
  /** Offset in the file of the first byte not yet returned in a frame. */
  private offset = 0;

  /** `size`: the file's length in bytes, when known (a frame past it is refused at once). */
  constructor(private readonly size?: number) {
    if (size !== undefined && (!Number.isSafeInteger(size) || size < 0)) {
      throw new TypeError('FrameReader: size');
    }
  }

  /** Checks a frame's declared length at `this.offset`: a {@link FrameError} when it cannot be. */
  private check(n: number): void {
    if (n === 0) {
      throw new FrameError('a frame of 0 bytes (no record is empty)', this.offset);
    }
    if (n > MAX_FRAME) {
      throw new FrameError(`a frame declares ${n} bytes, over ${MAX_FRAME}`, this.offset);
    }
    if (this.size !== undefined && n > this.size - this.offset - 4) {
      throw new FrameError(
        `a frame declares ${n} bytes, but the file holds ${Math.max(0, this.size - this.offset - 4)} after it`,
        this.offset,
      );
    }
  }

  /** The frames that `chunk` completes, in order. A {@link FrameError} for a frame that cannot be. */
  push(chunk: Uint8Array): Uint8Array[] {
    if (!(chunk instanceof Uint8Array)) throw new TypeError('FrameReader.push: expected bytes');
    const out: Uint8Array[] = [];
    let pos = 0;
    while (pos < chunk.length) {
      const frame = this.frame;
      if (frame !== undefined) {
        // The rest of a frame begun in an earlier chunk.
        const take = Math.min(frame.length - this.filled, chunk.length - pos);
        frame.set(chunk.subarray(pos, pos + take), this.filled);
        this.filled += take;
        pos += take;
        if (this.filled === frame.length) {
          out.push(frame);
          this.offset += 4 + frame.length;
          this.frame = undefined;
        }
        continue;
      }
      let n: number;
      if (this.headFilled === 0 && chunk.length - pos >= 4) {
        n =
          (chunk[pos]! |
            (chunk[pos + 1]! << 8) |
            (chunk[pos + 2]! << 16) |
            (chunk[pos + 3]! << 24)) >>>
          0;
        pos += 4;
      } else {
        while (this.headFilled < 4 && pos < chunk.length)
          this.head[this.headFilled++] = chunk[pos++]!;
        if (this.headFilled < 4) break;
        const h = this.head;
        n = (h[0]! | (h[1]! << 8) | (h[2]! << 16) | (h[3]! << 24)) >>> 0;
        this.headFilled = 0;
      }
      this.check(n);
      if (chunk.length - pos >= n) {
        out.push(chunk.subarray(pos, pos + n));
        pos += n;
        this.offset += 4 + n;
      } else {
        // Checked above against the limit and the file: allocated only now.
        this.frame = new Uint8Array(n);
        this.filled = 0;
      }
    }
    return out;
  }

  /** Throws a {@link FrameError} when the bytes pushed end inside a frame. */
  end(): void {
    const partial = this.headFilled + (this.frame === undefined ? 0 : 4 + this.filled);
    if (partial > 0) {
      throw new FrameError(
        `the file ends inside a frame (${partial} bytes after the last whole frame)`,
        this.offset,
      );
    }
  }
}

/** The frames of a whole file's bytes; a {@link FrameError} when they do not read. */
export function decodeFrames(bytes: Uint8Array): Uint8Array[] {
  const reader = new FrameReader(bytes.length);
  const frames = reader.push(bytes);
  reader.end();
  return frames;
}
