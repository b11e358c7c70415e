// The bin as a child process: the shebang, exit codes, one-line errors, byte-exact output.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildExample, decideArgs, verifyArgs } from './example.js';
import { bin, expectUserError, tempDir } from './helpers.js';
import { BIN, PACKAGE_DIR } from './paths.js';

let dir: string;

beforeAll(async () => {
  dir = tempDir();
  await buildExample(dir);
});

describe('wai-steer, the bin', () => {
  it('is dist/main.js, with a shebang, and runs as an executable', () => {
    const pkg = JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8'));
    expect(pkg.bin).toEqual({ 'wai-steer': './dist/main.js' });
    expect(readFileSync(BIN, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    const r = bin(['--version'], dir, BIN);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^wai-steer \d+\.\d+\.\d+\n$/);
  });

  it('prints its help and exits 0', () => {
    const r = bin(['--help'], dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: wai-steer <command>');
    expect(r.stderr).toBe('');
  });

  it('an unknown command or a missing file: one line on stderr, exit 2', () => {
    expectUserError(bin(['frobnicate'], dir), /^wai-steer: unknown command "frobnicate"/);
    expectUserError(bin(['pubkey', 'nope.jwk'], dir), /^wai-steer: cannot read key file/);
    expectUserError(
      bin(['verify', '--room', 'room.wrd'], dir),
      /^wai-steer: verify: missing --policy/,
    );
  });

  it('decides, verifies (exit 0), and refuses a tampered decision (exit 1)', () => {
    const d = bin(decideArgs(), dir);
    expect(d.code, d.stderr).toBe(0);
    expect(d.stdout).toMatch(/^[0-9a-f]{64}\n$/);
    const v = bin([...verifyArgs(), '--json'], dir);
    expect(v.code, v.stderr).toBe(0);
    expect(v.stdout).toMatch(
      /^\{"outcome":"accept","digest":"[0-9a-f]{64}","priority":\["cdn-b","cdn-b-eu","cdn-a"\],"ttl":300,"reason":"rank","pathways":\[/,
    );
    expect(v.stdout.endsWith('"}\n')).toBe(true);
    const r = bin([...verifyArgs('policy.wsp'), '--json'], dir);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('{"outcome":"refuse","reason":"malformed","where":{"at":"decision"}}\n');
  });

  it("prints the HLS tag's bytes, with no line terminator when piped", () => {
    const r = bin(['hls-tag', 'policy.wsp'], dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      '#EXT-X-CONTENT-STEERING:SERVER-URI="https://steer.example.com/steer",PATHWAY-ID="cdn-a"',
    );
  });
});
