import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeFrames, encodeFrames, FrameError, FrameReader } from '../src/index.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);

/** Cuts `bytes` at the given points (sorted, deduplicated, within it). */
function cut(bytes: Uint8Array, points: number[]): Uint8Array[] {
  const at = [...new Set(points.map((p) => p % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let prev = 0;
  for (const p of at) {
    out.push(bytes.slice(prev, p));
    prev = p;
  }
  out.push(bytes.slice(prev));
  return out;
}

describe('frames', () => {
  it('read back what was written, however the file is cut into chunks', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ minLength: 1, maxLength: 300 }), { maxLength: 20 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.boolean(),
        (records, points, sized) => {
          const file = encodeFrames(records);
          const reader = new FrameReader(sized ? file.length : undefined);
          const got: Uint8Array[] = [];
          for (const chunk of cut(file, points))
            for (const f of reader.push(chunk)) got.push(f.slice());
          reader.end();
          expect(got).toEqual(records);
          expect(decodeFrames(file)).toEqual(records);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('a file cut inside a frame is a FrameError, never a frame less', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ minLength: 1, maxLength: 100 }), { minLength: 1, maxLength: 8 }),
        fc.nat(),
        (records, n) => {
          const file = encodeFrames(records);
          const len = n % file.length; // strictly shorter
          const short = file.slice(0, len);
          let boundary = 0;
          const boundaries = new Set([0]);
          for (const r of records) {
            boundary += 4 + r.length;
            boundaries.add(boundary);
          }
          if (boundaries.has(len)) {
            expect(decodeFrames(short).length).toBeLessThan(records.length);
          } else {
            expect(() => decodeFrames(short)).toThrow(FrameError);
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('any bytes: frames or a FrameError, nothing else', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        try {
          const frames = decodeFrames(bytes);
          // What was read writes back to the same bytes.
          expect(encodeFrames(frames)).toEqual(bytes);
        } catch (e) {
          expect(e).toBeInstanceOf(FrameError);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('refuses a frame declared over the limit', () => {
    const file = new Uint8Array([0xff, 0xff, 0xff, 0xff, 1, 2, 3]);
    expect(() => decodeFrames(file)).toThrow(FrameError);
  });

  it('refuses a frame longer than what is left of the file before reading it, and an empty one', () => {
    // 1 MiB declared, 3 bytes there: refused at the length, with the file's size given.
    const reader = new FrameReader(7);
    expect(() => reader.push(new Uint8Array([0, 0, 16, 0, 1, 2, 3]))).toThrow(
      /declares 1048576 bytes, but the file holds 3/,
    );
    expect(() => decodeFrames(new Uint8Array([0, 0, 0, 0]))).toThrow(/0 bytes/);
    expect(() => encodeFrames([new Uint8Array(0)])).toThrow(RangeError);
  });
});
