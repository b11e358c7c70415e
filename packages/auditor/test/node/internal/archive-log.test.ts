// The decision log an archive carries, as read from disk: the span archive.json states, and the
// entries read in whole ones. (The checkpoint and root checks: log.test.ts, through the audit.)
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ArchiveError } from '../../../src/archive.js';
import { logEntryChunks, spanOfMeta } from '../../../src/node/internal/archive-log.js';
import { tempDir } from '../../helpers/world.js';

const U64_MAX = 18_446_744_073_709_551_615n;
const ROOM = { room: 'ef'.repeat(32), grace_s: 10 };

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

describe('spanOfMeta', () => {
  it('is all of time when archive.json states no span', () => {
    expect(spanOfMeta(ROOM)).toEqual({ from: 0n, to: U64_MAX });
    expect(spanOfMeta({ ...ROOM, span: null })).toEqual({ from: 0n, to: U64_MAX });
    expect(spanOfMeta({ ...ROOM, span: 'today' })).toEqual({ from: 0n, to: U64_MAX });
  });

  it('reads each end stated in decimal µs, and takes an end that does not read as open', () => {
    expect(spanOfMeta({ ...ROOM, span: { from: '5', to: '18446744073709551615' } })).toEqual({
      from: 5n,
      to: U64_MAX,
    });
    expect(spanOfMeta({ ...ROOM, span: { from: 7, to: '18446744073709551616' } })).toEqual({
      from: 0n,
      to: U64_MAX,
    });
    expect(spanOfMeta({ ...ROOM, span: { from: '-1', to: '12' } })).toEqual({ from: 0n, to: 12n });
  });
});

describe('logEntryChunks', () => {
  function file(bytes: Uint8Array): string {
    const t = tempDir();
    cleanups.push(t.remove);
    const path = join(t.dir, 'log-entries.bin');
    writeFileSync(path, bytes);
    return path;
  }

  it('gives the whole file in chunks of whole 40-byte entries', () => {
    // 30 000 entries: two chunks of about 1 MiB.
    const bytes = Uint8Array.from({ length: 40 * 30_000 }, (_, i) => (i * 7) & 0xff);
    const chunks = [...logEntryChunks(file(bytes))];
    expect(chunks.map((c) => c.length % 40)).toEqual([0, 0]);
    expect(new Uint8Array(Buffer.concat(chunks))).toEqual(bytes);
    expect([...logEntryChunks(file(new Uint8Array(0)))]).toEqual([]);
  });

  it('refuses a file that is not a whole number of entries, naming it', () => {
    const path = file(new Uint8Array(81));
    expect(() => [...logEntryChunks(path)]).toThrow(
      new ArchiveError(`${path}: 81 bytes, not a whole number of 40-byte entries`),
    );
  });
});
