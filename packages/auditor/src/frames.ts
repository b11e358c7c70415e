/**
 * The archive's frames: a file of the archive (`policies.bin`, `records.bin`, `decisions.bin`) is
 * a sequence of frames, each a u32 little-endian length followed by that many bytes of one record
 * (`WSP1`, `WMH1` or `WSD1`). A reader is given the file's bytes in chunks of any size, so that an
 * archive of any length is read in bounded memory.
 *
 * Read strictly: each frame's length is checked against the largest record of its file before
 * anything is allocated for it, and a frame that does not read as its file's record (companion
 * C1) is an error of the archive naming the file and the frame, never a record left out.
 */
import { type Refusal, readDecision, readHopRecord, readPolicy } from '@wai-steering/wire';

/** The most bytes one frame may hold, whatever its file. */
export const MAX_FRAME = 1 << 24;

/**
 * The largest per-hop record (`WMH1`, companion C5.1) that reads: 171 bytes of fixed fields and
 * the track count, 255 track entries of 14 bytes, `sig`.
 */
export const MAX_HOP_RECORD = 171 + 255 * 14 + 64;

/**
 * The largest decision (`WSD1`, §7.1) that reads: 155 bytes of fixed fields and counts (magic,
 * version, room, signer, policy, `t`, session, draw, protocol, the report's 18, the pathway count,
 * `ttl`, reason, the priority count), 255 pathways of 40 bytes and 255 evidence digests each,
 * 255 priority entries, `sig`.
 */
export const MAX_DECISION = 155 + 255 * (40 + 255 * 32) + 255 + 64;

/**
 * The files of frames, the record each frame holds, and the most bytes a frame of it may hold:
 * the largest record that reads, or {@link MAX_FRAME} where that is larger (a policy's layout
 * allows about 35 MB, its rules under 3 MB).
 */
export const FRAME_FILES = {
  'policies.bin': { magic: 'WSP1', record: 'a policy', max: MAX_FRAME },
  'records.bin': { magic: 'WMH1', record: 'a per-hop record', max: MAX_HOP_RECORD },
  'decisions.bin': { magic: 'WSD1', record: 'a decision', max: MAX_DECISION },
} as const;

/** The name of a file of frames. */
export type FrameFile = keyof typeof FRAME_FILES;

/** A frame file that does not read: where it stopped and why. */
export class FrameError extends Error {
  constructor(
    message: string,
    /** The offset in the file of the frame that does not read. */
    readonly offset: number,
    /** The frame's index in the file, from 0. */
    readonly frame = 0,
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
 * empty), at most `max` ({@link MAX_FRAME} by default; a file's own in {@link FRAME_FILES}),
 * and, when the file's size is given, no more than what is left of the file. Memory is one frame
 * at most beyond the chunk given.
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
  /** Index of the next frame, from 0. */
  private index = 0;

  /**
   * `size`: the file's length in bytes, when known (a frame past it is refused at once); `max`:
   * the most bytes a frame may hold.
   */
  constructor(
    private readonly size?: number,
    private readonly max: number = MAX_FRAME,
  ) {
    if (size !== undefined && (!Number.isSafeInteger(size) || size < 0)) {
      throw new TypeError('FrameReader: size');
    }
    if (!Number.isSafeInteger(max) || max < 1 || max > MAX_FRAME) {
      throw new TypeError(`FrameReader: max is not from 1 to ${MAX_FRAME}`);
    }
  }

  /** Frames returned so far. */
  get frames(): number {
    return this.index;
  }

  /** Checks a frame's declared length at `this.offset`: a {@link FrameError} when it cannot be. */
  private check(n: number): void {
    const fail = (what: string): never => {
      throw new FrameError(
        `frame ${this.index} (at byte ${this.offset}) ${what}`,
        this.offset,
        this.index,
      );
    };
    if (n === 0) fail('holds 0 bytes (no record is empty)');
    if (n > this.max)
      fail(`declares ${n} bytes, over the ${this.max} a frame of this file may hold`);
    if (this.size !== undefined && n > this.size - this.offset - 4) {
      fail(
        `declares ${n} bytes, but the file holds ${Math.max(0, this.size - this.offset - 4)} after it`,
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
          this.index++;
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
        this.index++;
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
        `frame ${this.index} (at byte ${this.offset}): the file ends inside it (${partial} bytes after the last whole frame)`,
        this.offset,
        this.index,
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

/** Companion C1's reasons: bytes refused with one are not the record at all. */
const UNREAD: ReadonlySet<string> = new Set(['truncated', 'malformed', 'unknown_version']);

/**
 * Whether a refusal's reason is companion C1's (`truncated`, `malformed`, `unknown_version`):
 * the bytes do not read as the record, where any other reason is a record that reads and breaks
 * a rule or does not verify.
 */
export function isUnread(reason: string): boolean {
  return UNREAD.has(reason);
}

/**
 * Why a frame of `file` does not read as its file's record (C1: its magic, its version, its
 * fields, `sig`, nothing left over), or `null` when it reads; a record that reads and breaks its
 * rules (§3.3, C5.3, §7.2) reads.
 */
export function frameUnread(file: FrameFile, bytes: Uint8Array): Refusal | null {
  const read =
    file === 'policies.bin'
      ? readPolicy(bytes)
      : file === 'records.bin'
        ? readHopRecord(bytes)
        : readDecision(bytes);
  return !read.ok && isUnread(read.refusal.reason) ? read.refusal : null;
}

/**
 * The one line of a frame that does not read as its file's record: the file (its path), the
 * frame's index and offset, and why.
 */
export function unreadFrameMessage(
  path: string,
  file: FrameFile,
  frame: number,
  offset: number,
  why: string,
): string {
  const f = FRAME_FILES[file];
  return `${path}: frame ${frame} (at byte ${offset}) does not read as ${f.record} (${f.magic}): ${why}`;
}
