// The session secret kept beside a SQLite store when none is configured: made once (32 random
// bytes, mode 0600), the same for every process that asks after, a half-written one never read,
// and one too short refused with a line naming it.
import { fork } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/errors.js';
import { secretBeside, secretPathOf } from '../../src/start/session-secret.js';
import { tempDir } from '../helpers/setup.js';

const dirs: (() => void)[] = [];
afterEach(() => {
  for (const remove of dirs.splice(0)) remove();
});

function dir(): string {
  const t = tempDir('wai-secret-');
  dirs.push(t.remove);
  return t.dir;
}

describe('the session secret beside the store', () => {
  it('is made once, 32 bytes of mode 0600, and read again after', () => {
    const store = join(dir(), 'steering.sqlite');
    const first = secretBeside(store);
    expect(first.length).toBe(32);
    const path = secretPathOf(store);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(new Uint8Array(readFileSync(path))).toEqual(first);
    expect(secretBeside(store)).toEqual(first);
    expect(secretBeside(join(dir(), 'other.sqlite'))).not.toEqual(first);
  });

  it('is the same for processes that start together (one linked, the others read it)', async () => {
    const store = join(dir(), 'steering.sqlite');
    const out = dir();
    const { build } = await import('tsup');
    await build({
      entry: { child: new URL('../fixtures/session-secret-child.ts', import.meta.url).pathname },
      outDir: out,
      format: ['esm'],
      platform: 'node',
      target: 'node20',
      dts: false,
      config: false,
      silent: true,
    });
    const script = join(out, 'child.js');
    const secrets = await Promise.all(
      Array.from(
        { length: 6 },
        () =>
          new Promise<string>((resolve, reject) => {
            const child = fork(script, [store]);
            child.once('message', (m) => resolve(String(m)));
            child.once('error', reject);
            child.once('exit', (code) => {
              if (code !== 0) reject(new Error(`exit ${code}`));
            });
          }),
      ),
    );
    expect(new Set(secrets).size).toBe(1);
    expect(secrets[0]).toBe(readFileSync(secretPathOf(store)).toString('hex'));
  });

  it('refuses one too short, naming the file', () => {
    const store = join(dir(), 'steering.sqlite');
    writeFileSync(secretPathOf(store), new Uint8Array(8));
    expect(() => secretBeside(store)).toThrow(ConfigError);
    expect(() => secretBeside(store)).toThrow(/steering\.sqlite\.session-secret .*holds 8 bytes/);
  });
});
