import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { toHex } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentConfigError, Spool, serverId, spoolProblem } from '../../src/index.js';
import { openSpoolDirs, takenDir, writeDurably } from '../../src/spool/directories.js';
import { makeUnwritable, type Unwritable } from '../helpers/read-only.js';
import { tempDir } from '../helpers/room.js';

const SERVERS = ['http://127.0.0.1:9'];

function refusal(dir: string): string {
  try {
    new Spool(dir, SERVERS);
  } catch (e) {
    expect(e).toBeInstanceOf(AgentConfigError);
    const message = (e as Error).message;
    expect(message).not.toContain('\n');
    return message;
  }
  throw new Error(`the spool ${dir} opened`);
}

let unwritable: Unwritable | undefined;
afterEach(() => {
  unwritable?.restore();
  unwritable = undefined;
});

describe('opening the spool', () => {
  it('creates its directories, and a fresh spool has no cursor', () => {
    const dir = join(tempDir(), 'a', 'b', 'spool');
    const spool = new Spool(dir, SERVERS);
    expect(readdirSync(dir).sort()).toEqual(['done', 'records', 'refused', 'taken']);
    expect(spool.cursor()).toBeUndefined();
  });

  it('refuses a path under /proc or /sys at once, naming it (no mkdir -p that never ends)', () => {
    expect(refusal('/proc/nope')).toBe(
      'spool /proc/nope: under /proc, a kernel file system that holds no files of the agent: choose a directory on a disk (such as /var/lib/wai-steering/hop-spool)',
    );
    expect(refusal('/sys/kernel/nope/spool')).toMatch(
      /^spool \/sys\/kernel\/nope\/spool: under \/sys, /,
    );
  });

  it('refuses a path that reaches /proc through a symbolic link', () => {
    const link = join(tempDir(), 'link');
    symlinkSync('/proc', link);
    expect(refusal(join(link, 'x', 'spool'))).toMatch(
      new RegExp(`^spool ${join(link, 'x', 'spool')}: under /proc, `),
    );
  });

  it('a file where a directory belongs: one line naming the path and the fix', () => {
    const d = tempDir();
    writeFileSync(join(d, 'file'), '');
    expect(refusal(join(d, 'file', 'spool'))).toMatch(
      /^spool .*\/file\/spool: cannot write it \(ENOTDIR\): a file stands where a directory belongs: move that file, or choose another spool$/,
    );
    writeFileSync(join(d, 'spool'), '');
    expect(refusal(join(d, 'spool'))).toMatch(/^spool .*\/spool: cannot write it \(ENOTDIR\)/);
  });

  it('a spool that exists but cannot be written: refused at start, not at the first period', () => {
    const dir = join(tempDir(), 'spool');
    new Spool(dir, SERVERS);
    unwritable = makeUnwritable(dir);
    expect(refusal(dir)).toBe(spoolProblem(dir, unwritable.code));
    expect(spoolProblem(dir, unwritable.code)).toMatch(
      /^spool .*: cannot write it \((EACCES|EROFS|EPERM)\): .+/,
    );
  });

  it('a directory it may not create in: EPERM (immutable) or EACCES (its mode), named', () => {
    const parent = tempDir();
    unwritable = makeUnwritable(parent, 'EPERM');
    const dir = join(parent, 'spool');
    expect(refusal(dir)).toBe(spoolProblem(dir, unwritable.code));
  });

  it("a taken/ folder for each server, named by the start of its URL's SHA-256", () => {
    const dir = join(tempDir(), 'spool');
    const servers = ['http://127.0.0.1:8080', 'http://127.0.0.1:8081'];
    const dirs = openSpoolDirs(dir, servers);
    const ids = servers.map((s) =>
      toHex(nodeBackend.sha256(new TextEncoder().encode(s))).slice(0, 16),
    );
    expect(servers.map(serverId)).toEqual(ids);
    expect(readdirSync(dirs.taken).sort()).toEqual([...ids].sort());
    expect(takenDir(dirs, servers[1]!)).toBe(join(dir, 'taken', ids[1]!));
    // No probe is left behind.
    expect(readdirSync(dir).filter((n) => n.startsWith('.'))).toEqual([]);
  });
});

describe('a problem with the spool', () => {
  it('is one line: the path, the code and the fix', () => {
    expect(spoolProblem('/var/spool', 'ENOSPC')).toBe(
      'spool /var/spool: cannot write it (ENOSPC): the disk is full: free space on it, or choose a spool on another disk',
    );
    expect(spoolProblem('/var/spool', 'EROFS')).toBe(
      'spool /var/spool: cannot write it (EROFS): it is on a read-only file system: remount it read-write, or choose a spool on a writable one',
    );
    for (const code of [
      'EACCES',
      'EPERM',
      'ENOTDIR',
      'EEXIST',
      'EISDIR',
      'EDQUOT',
      'ENOENT',
      'EIO',
    ]) {
      const line = spoolProblem('/s', code);
      expect(line).toMatch(new RegExp(`^spool /s: cannot write it \\(${code}\\): .+`));
      expect(line).not.toContain('check the path and its file system');
    }
    expect(spoolProblem('/s', 'EWHAT')).toBe(
      'spool /s: cannot write it (EWHAT): check the path and its file system',
    );
  });
});

describe('a durable write', () => {
  it('leaves the file whole under its name, and nothing else', () => {
    const dir = tempDir();
    writeDurably(dir, 'a.wmh', new Uint8Array([1, 2, 3]));
    writeDurably(dir, 'b.json', 'text\n');
    writeDurably(dir, 'b.json', 'new\n');
    expect(readdirSync(dir).sort()).toEqual(['a.wmh', 'b.json']);
    expect([...readFileSync(join(dir, 'a.wmh'))]).toEqual([1, 2, 3]);
    expect(readFileSync(join(dir, 'b.json'), 'utf8')).toBe('new\n');
  });

  it('into a directory that is gone: the error, and no file', () => {
    const dir = join(tempDir(), 'gone');
    expect(() => writeDurably(dir, 'a', 'x')).toThrow(expect.objectContaining({ code: 'ENOENT' }));
    expect(existsSync(dir)).toBe(false);
    mkdirSync(dir);
    writeDurably(dir, 'a', 'x');
    expect(readdirSync(dir)).toEqual(['a']);
  });
});
