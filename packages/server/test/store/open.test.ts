// Finding 7: a bad store at start exited with "internal error … a bug", naming neither
// store.path nor the file, and a corrupted page started anyway. Finding 2 (second half): a missing
// store was silently created empty. Now each is refused at start with its path and the cause.

import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  copyFileSync,
  mkdirSync,
  openSync,
  readFileSync,
  statSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/errors.js';
import { openStore } from '../../src/store/open.js';
import { SqliteStore } from '../../src/store/sqlite/index.js';
import { tempDir } from '../helpers/setup.js';

const t = tempDir('wai-open-');
afterAll(() => t.remove());

/** A sound store with enough rows to span many pages. */
let good: string;
beforeAll(() => {
  good = join(t.dir, 'good.sqlite');
  const s = new SqliteStore(good, { checkpoint: 'inline' });
  for (let i = 0; i < 40; i++) {
    s.putBlob('policy', randomBytes(32), randomBytes(3000));
  }
  s.checkpoint();
  s.close();
});

async function refusal(
  path: string,
  options: Parameters<typeof openStore>[1] = {},
): Promise<string> {
  try {
    const s = await openStore(path, options);
    s.close();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    const message = (e as Error).message;
    expect(message).not.toMatch(/bug|internal/i);
    return message;
  }
  throw new Error(`${path} was opened`);
}

function copy(name: string): string {
  const p = join(t.dir, name);
  copyFileSync(good, p);
  return p;
}

describe('a store at start', () => {
  it('opens a sound store, and creates a missing one only when asked', async () => {
    const s = await openStore(good);
    expect(s.quickCheck()).toEqual([]);
    s.close();
    const fresh = join(t.dir, 'fresh.sqlite');
    const missing = await refusal(fresh);
    expect(missing).toBe(
      `store.path: ${fresh} does not exist: a new store is created only when asked (store.create: true, or wai-steer serve --init); if it existed, it was moved or deleted`,
    );
    const created = await openStore(fresh, { create: true });
    created.close();
    expect(statSync(fresh).size).toBeGreaterThan(0);
  });

  it('refuses a store in a missing directory', async () => {
    const p = join(t.dir, 'nowhere', 'store.sqlite');
    expect(await refusal(p, { create: true })).toMatch(
      new RegExp(`^store\\.path: ${p} is in a directory that does not exist`),
    );
  });

  it('refuses a directory', async () => {
    const p = join(t.dir, 'a-dir');
    mkdirSync(p);
    expect(await refusal(p)).toBe(`store.path: ${p} is a directory, not a store file`);
  });

  it('refuses random bytes', async () => {
    const p = join(t.dir, 'random.sqlite');
    writeFileSync(p, randomBytes(8192));
    expect(await refusal(p)).toBe(
      `store.path: ${p} is not a SQLite database (its header is not SQLite's)`,
    );
  });

  it('refuses an empty file', async () => {
    const p = join(t.dir, 'empty.sqlite');
    writeFileSync(p, '');
    expect(await refusal(p)).toMatch(new RegExp(`^store\\.path: ${p} is empty`));
  });

  it('refuses a truncated file', async () => {
    const p = copy('truncated.sqlite');
    const size = statSync(p).size;
    truncateSync(p, Math.floor(size / 2) + 100);
    expect(await refusal(p)).toMatch(new RegExp(`^store\\.path: ${p} is truncated`));
    // Cut at a page boundary: the header still says more pages.
    const q = copy('truncated-page.sqlite');
    truncateSync(q, 4096 * 3);
    expect(await refusal(q)).toMatch(
      new RegExp(`^store\\.path: ${q} is truncated .*states \\d+ pages`),
    );
  });

  it("opens a store whose header is ahead of its file while another process's checkpoint runs", async () => {
    // A checkpoint copies the WAL's pages in page order: page 1, whose header states the new page
    // count, reaches the file before the pages that extend it. The writer here keeps its pages in
    // the WAL (SQLite's own checkpoint runs at 1 000 pages); the test then copies page 1 alone, as
    // a checkpoint caught at that moment has.
    const p = join(t.dir, 'mid-checkpoint.sqlite');
    const writer = new SqliteStore(p, { checkpoint: 'inline' });
    writer.checkpoint();
    const keys = Array.from({ length: 30 }, () => randomBytes(32));
    for (const k of keys) await writer.putBlob('policy', k, randomBytes(3000));
    const wal = readFileSync(`${p}-wal`);
    const pageSize = wal.readUInt32BE(8);
    let page1: Buffer | undefined;
    for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) {
      if (wal.readUInt32BE(at) === 1) page1 = wal.subarray(at + 24, at + 24 + pageSize);
    }
    expect(page1).toBeDefined();
    const fd = openSync(p, 'r+');
    writeSync(fd, page1!, 0, pageSize, 0);
    closeSync(fd);
    const header = readFileSync(p).subarray(0, 100);
    expect(header.readUInt32BE(92)).toBe(header.readUInt32BE(24));
    expect(header.readUInt32BE(28) * pageSize).toBeGreaterThan(statSync(p).size);

    const opened = await openStore(p);
    for (const k of keys) expect((await opened.getBlob('policy', k))?.length).toBe(3000);
    opened.close();
    writer.close();
  });

  it('refuses a file cut short with a WAL beside it, by quick_check', async () => {
    const p = copy('truncated-wal.sqlite');
    truncateSync(p, 4096 * 3);
    writeFileSync(`${p}-wal`, randomBytes(4096));
    expect(await refusal(p)).toMatch(
      new RegExp(`^store\\.path: ${p} (is truncated|is damaged|does not open)`),
    );
  });

  it('refuses a read-only file', async () => {
    const p = copy('read-only.sqlite');
    chmodSync(p, 0o444);
    expect(await refusal(p)).toBe(
      `store.path: ${p} is read-only (mode 444): the server writes to its store`,
    );
  });

  it('refuses a store with a corrupted page, by quick_check', async () => {
    const p = copy('corrupt.sqlite');
    const pageSize = readFileSync(p).readUInt16BE(16);
    const pages = statSync(p).size / pageSize;
    expect(pages).toBeGreaterThan(8);
    // A page in the middle of the blobs' B-tree, overwritten with garbage.
    const fd = openSync(p, 'r+');
    writeSync(fd, randomBytes(pageSize), 0, pageSize, pageSize * Math.floor(pages / 2));
    closeSync(fd);
    expect(await refusal(p)).toMatch(
      new RegExp(`^store\\.path: ${p} is damaged: SQLite's quick_check says: `),
    );
  });
});
