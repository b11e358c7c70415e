import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentConfigError, Spool, spoolProblem } from '../src/index.js';
import { makeUnwritable, type Unwritable } from './helpers/read-only.js';
import { tempDir } from './helpers/room.js';

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

  it('moves a cursor.json that does not read to refused/, with its reason', () => {
    const dir = join(tempDir(), 'spool');
    mkdirSync(dir);
    writeFileSync(join(dir, 'cursor.json'), '{"end": 12, "reading": {"values": {"a": 1}}}');
    const refused: string[] = [];
    const spool = new Spool(dir, SERVERS, { onRefused: (f, why) => refused.push(`${f}: ${why}`) });
    expect(refused).toEqual([
      `${join(dir, 'cursor.json')}: cursor.json states no end (µs, a decimal string)`,
    ]);
    expect(spool.cursor()).toBeUndefined();
    expect(readFileSync(join(dir, 'refused', 'cursor.json.reason'), 'utf8')).toBe(
      'spool cursor.json states no end (µs, a decimal string)\n',
    );
    expect(spool.refusedFiles).toBe(1);
  });
});
