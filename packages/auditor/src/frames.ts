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
 */
export class FrameReader {
  private pending: Uint8Array = new Uint8Array(0);
  private used = 0;
  /** Offset in the file of the first byte not yet returned in a frame. */
  private offset = 0;

  /** The frames that `chunk` completes, in order. A {@link FrameError} for an oversized frame. */
  push(chunk: Uint8Array): Uint8Array[] {
    if (!(chunk instanceof Uint8Array)) throw new TypeError('FrameReader.push: expected bytes');
    const out: Uint8Array[] = [];
    let buf: Uint8Array;
    let pos = 0;
    if (this.used === 0) {
      buf = chunk;
    } else {
      // Join what was left with the new chunk (only the tail of the last frame is carried).
      buf = new Uint8Array(this.used + chunk.length);
      buf.set(this.pending.subarray(0, this.used), 0);
      buf.set(chunk, this.used);
      this.used = 0;
    }
    const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    while (buf.length - pos >= 4) {
      const n = view.getUint32(pos, true);
      if (n > MAX_FRAME) {
        throw new FrameError(`a frame declares ${n} bytes, over ${MAX_FRAME}`, this.offset);
      }
      if (buf.length - pos - 4 < n) break;
      out.push(buf.subarray(pos + 4, pos + 4 + n));
      pos += 4 + n;
      this.offset += 4 + n;
    }
    const rest = buf.length - pos;
    if (rest > 0) {
      if (this.pending.length < rest) this.pending = new Uint8Array(Math.max(rest, 4096));
      this.pending.set(buf.subarray(pos), 0);
      this.used = rest;
    }
    return out;
  }

  /** Throws a {@link FrameError} when the bytes pushed end inside a frame. */
  end(): void {
    if (this.used > 0) {
      throw new FrameError(
        `the file ends inside a frame (${this.used} bytes after the last whole frame)`,
        this.offset,
      );
    }
  }
}

/** The frames of a whole file's bytes; a {@link FrameError} when they do not read. */
export function decodeFrames(bytes: Uint8Array): Uint8Array[] {
  const reader = new FrameReader();
  const frames = reader.push(bytes);
  reader.end();
  return frames;
}
