// Reading an archive's files: anything but a regular file refused before a byte is read, a small
// file whole within its limit, a file of frames read back as written across chunks and slices.
import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeFrames } from '../../../src/frames.js';
import {
  FileFrames,
  frameBatches,
  openFile,
  readFile,
  sizeOf,
} from '../../../src/node/internal/files.js';
import { refusal } from '../../helpers/refusal.js';
import { tempDir } from '../../helpers/world.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 30);

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function dir(): string {
  const t = tempDir();
  cleanups.push(t.remove);
  return t.dir;
}

describe('openFile', () => {
  it('refuses a FIFO, a device behind a link, a directory and a loop of links, naming the file', () => {
    const d = dir();
    expect(spawnSync('mkfifo', [join(d, 'fifo')]).status).toEqual(0);
    symlinkSync('/dev/zero', join(d, 'zero'));
    mkdirSync(join(d, 'sub'));
    symlinkSync(join(d, 'loop-b'), join(d, 'loop-a'));
    symlinkSync(join(d, 'loop-a'), join(d, 'loop-b'));
    expect(refusal(() => openFile(join(d, 'fifo')))).toEqual(
      `${join(d, 'fifo')}: a FIFO, not a regular file; an archive's files are regular files: put the file itself there`,
    );
    expect(refusal(() => openFile(join(d, 'zero')))).toMatch(/zero: a character device, not/);
    expect(refusal(() => openFile(join(d, 'sub')))).toMatch(/sub: a directory, not/);
    expect(refusal(() => openFile(join(d, 'loop-a')))).toEqual(
      `${join(d, 'loop-a')}: a loop of symbolic links; put the file itself there`,
    );
  });

  it('is null for an absent optional file, and a refusal for an absent required one', () => {
    const d = dir();
    expect(openFile(join(d, 'none'), true)).toEqual(null);
    expect(refusal(() => openFile(join(d, 'none')))).toEqual(
      `${join(d, 'none')}: cannot read (ENOENT)`,
    );
  });

  it('follows a link to a regular file, and gives its size', () => {
    const d = dir();
    writeFileSync(join(d, 'f'), new Uint8Array(17));
    symlinkSync(join(d, 'f'), join(d, 'link'));
    expect(sizeOf(join(d, 'link'))).toEqual(17);
  });
});

describe('readFile', () => {
  it('reads a file whole within its limit, and refuses one over it before reading', () => {
    const d = dir();
    const bytes = Uint8Array.from({ length: 100 }, (_, i) => i);
    writeFileSync(join(d, 'f'), bytes);
    expect(readFile(d, 'f', 100)).toEqual(bytes);
    expect(refusal(() => readFile(d, 'f', 99))).toEqual(
      `${join(d, 'f')}: 100 bytes, over the 99 it may hold`,
    );
    expect(readFile(d, 'none', 10, true)).toEqual(null);
  });
});

describe('frameBatches and FileFrames', () => {
  it('read back the frames written, across chunks of 1 MiB and slices of 64 KiB', () => {
    const d = dir();
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ minLength: 1, maxLength: 200_000 }), { maxLength: 12 }),
        (records) => {
          const path = join(d, 'frames.bin');
          const file = encodeFrames(records);
          writeFileSync(path, file);
          expect([...new FileFrames(path)]).toEqual(records);
          const told: number[] = [];
          const batches = [...frameBatches(path, (read, size) => told.push(size - read))];
          expect(batches.flat()).toEqual(records);
          // Told once a chunk, the last time with nothing left.
          expect(told.length).toEqual(Math.ceil(file.length / 2 ** 20));
          if (told.length > 0) expect(told.at(-1)).toEqual(0);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('reads a file again at each iteration', () => {
    const d = dir();
    const path = join(d, 'frames.bin');
    writeFileSync(path, encodeFrames([Uint8Array.of(1)]));
    const frames = new FileFrames(path);
    expect([...frames]).toEqual([Uint8Array.of(1)]);
    writeFileSync(path, encodeFrames([Uint8Array.of(2), Uint8Array.of(3)]));
    expect([...frames]).toEqual([Uint8Array.of(2), Uint8Array.of(3)]);
  });

  it('refuses a frame that does not read with one line naming the file and the byte', () => {
    const d = dir();
    const path = join(d, 'frames.bin');
    // A whole frame, then one cut short: 5 bytes declared, 2 there.
    writeFileSync(path, Uint8Array.of(1, 0, 0, 0, 9, 5, 0, 0, 0, 1, 2));
    expect(refusal(() => [...new FileFrames(path)])).toMatch(
      new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: frame 1 \\(at byte 5\\) .*$`),
    );
    writeFileSync(path, new Uint8Array(8));
    expect(refusal(() => [...frameBatches(path)])).toEqual(
      `${path}: frame 0 (at byte 0) holds 0 bytes (no record is empty)`,
    );
  });
});
