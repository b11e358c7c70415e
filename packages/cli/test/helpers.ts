import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect } from 'vitest';
import { main } from '../src/index.js';
import { BIN } from './paths.js';

/** What one run of the command line gave. */
export interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly stdoutBytes: Uint8Array;
}

function collector(tty: boolean) {
  const chunks: Uint8Array[] = [];
  const encoder = new TextEncoder();
  return {
    chunks,
    writer: {
      isTTY: tty,
      write(chunk: string | Uint8Array): boolean {
        chunks.push(typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
        return true;
      },
    },
    bytes(): Uint8Array {
      return new Uint8Array(Buffer.concat(chunks));
    },
  };
}

/** Runs `wai-steer argv…` in-process, in `cwd`. */
export async function cli(
  argv: readonly string[],
  cwd: string,
  options: { tty?: boolean } = {},
): Promise<Ran> {
  const out = collector(options.tty ?? false);
  const err = collector(false);
  const code = await main(argv, { stdout: out.writer, stderr: err.writer, cwd });
  const decoder = new TextDecoder();
  return {
    code,
    stdout: decoder.decode(out.bytes()),
    stderr: decoder.decode(err.bytes()),
    stdoutBytes: out.bytes(),
  };
}

/** Runs the built bin as a child process. */
export function bin(argv: readonly string[], cwd: string, file = process.execPath): Ran {
  const args = file === process.execPath ? [BIN, ...argv] : [...argv];
  const r = spawnSync(file, args, { cwd, encoding: 'buffer' });
  return {
    code: r.status ?? -1,
    stdout: r.stdout.toString('utf8'),
    stderr: r.stderr.toString('utf8'),
    stdoutBytes: new Uint8Array(r.stdout),
  };
}

/** Runs in-process and expects success; returns stdout. */
export async function ok(argv: readonly string[], cwd: string): Promise<string> {
  const r = await cli(argv, cwd);
  if (r.code !== 0) throw new Error(`wai-steer ${argv.join(' ')} exited ${r.code}: ${r.stderr}`);
  return r.stdout;
}

/** A user error: exit 2, one line on stderr, `wai-steer: `, no stack trace, nothing on stdout. */
export function expectUserError(r: Ran, pattern: RegExp, code = 2, label = ''): void {
  expect(r.code, `${label} ${r.stderr}`).toBe(code);
  expect(r.stdout).toBe('');
  expect(r.stderr.endsWith('\n')).toBe(true);
  expect(r.stderr.slice(0, -1)).not.toContain('\n');
  expect(r.stderr.startsWith('wai-steer: ')).toBe(true);
  expect(r.stderr).not.toMatch(/\n\s+at |internal error|TypeError|RangeError/);
  expect(r.stderr).toMatch(pattern);
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A fresh temporary directory, removed after the file's tests. */
export function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'wai-steer-test-'));
  dirs.push(d);
  return d;
}

/** A free TCP port on 127.0.0.1 (closed again: a small race, fine for tests). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}
