// The players page's demo stream: scripts/ffmpeg.sh installs ffmpeg as root where apt-get is
// (and does nothing otherwise); the demo makes the stream at its start when the build had none
// and ffmpeg is there, or says in its first lines that the page has none and the one command
// that gives it one.
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { streamLines } from '../src/commands/demo.js';
import { ensureDemoStream, hasFfmpeg, installFfmpegCommand } from '../src/internal/demo-stream.js';
import { tempDir } from './helpers.js';
import { REPO_DIR } from './paths.js';

/** A PATH of stubs: `id` saying `uid`, `apt-get` logging its arguments (failing `fail` times). */
function stubs(uid: number, options: { aptGet?: boolean; ffmpeg?: boolean; fail?: number } = {}) {
  const dir = tempDir();
  const log = join(dir, 'apt.log');
  const stub = (name: string, body: string) => {
    writeFileSync(join(dir, name), `#!/bin/bash\n${body}\n`);
    chmodSync(join(dir, name), 0o755);
  };
  stub('id', `echo ${uid}`);
  if (options.aptGet !== false) {
    const fail = options.fail ?? 0;
    stub(
      'apt-get',
      `echo "$@" >> ${log}; mapfile -t calls < ${log}; [ "$1" = install ] && [ "\${#calls[@]}" -le ${fail} ] && exit 100; exit 0`,
    );
  }
  if (options.ffmpeg === true) stub('ffmpeg', 'exit 0');
  const run = spawnSync('/bin/bash', [join(REPO_DIR, 'scripts', 'ffmpeg.sh')], {
    env: { PATH: dir },
    encoding: 'utf8',
  });
  return {
    status: run.status,
    stdout: run.stdout,
    stderr: run.stderr,
    calls: existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [],
  };
}

describe('scripts/ffmpeg.sh (run by scripts/setup.sh)', () => {
  it('installs ffmpeg quietly as root where apt-get is', () => {
    const r = stubs(0);
    expect(r.status).toBe(0);
    expect(r.calls).toEqual(['install -y -qq --no-install-recommends ffmpeg']);
    expect(r.stdout).toBe("setup: installing ffmpeg (for the players page's demo stream)\n");
  });

  it('updates the package lists when the first install fails', () => {
    const r = stubs(0, { fail: 1 });
    expect(r.status).toBe(0);
    expect(r.calls).toEqual([
      'install -y -qq --no-install-recommends ffmpeg',
      'update -qq',
      'install -y -qq --no-install-recommends ffmpeg',
    ]);
  });

  it('does nothing as another user, without apt-get, or with ffmpeg there', () => {
    for (const r of [stubs(1000), stubs(0, { aptGet: false }), stubs(0, { ffmpeg: true })]) {
      expect([r.status, r.calls, r.stdout, r.stderr]).toEqual([0, [], '', '']);
    }
  });
});

describe("the demo's stream", () => {
  const console = () => {
    const root = tempDir();
    mkdirSync(join(root, 'dist'), { recursive: true });
    mkdirSync(join(root, 'scripts'), { recursive: true });
    return root;
  };

  it('is ready when the build made it', () => {
    const root = console();
    mkdirSync(join(root, 'dist', 'stream'));
    writeFileSync(join(root, 'dist', 'stream', 'stream.json'), '{}');
    expect(ensureDemoStream(join(root, 'dist'), 'pnpm demo', { ffmpeg: false })).toEqual({
      kind: 'ready',
    });
  });

  it("is made at the demo's start when ffmpeg is there, by the console's own script", () => {
    const root = console();
    // The console's script, as the build runs it: here one that writes the stream's description.
    writeFileSync(
      join(root, 'scripts', 'stream.mjs'),
      `import { mkdirSync, writeFileSync } from 'node:fs';
const d = new URL('../dist/stream/', import.meta.url);
mkdirSync(d, { recursive: true });
writeFileSync(new URL('stream.json', d), '{}');`,
    );
    let said = 0;
    const made = ensureDemoStream(join(root, 'dist'), 'pnpm demo', {
      ffmpeg: true,
      onMaking: () => said++,
    });
    expect([made, said]).toEqual([{ kind: 'made' }, 1]);
    expect(ensureDemoStream(join(root, 'dist'), 'pnpm demo', { ffmpeg: true })).toEqual({
      kind: 'ready',
    });
  });

  it("is made at the demo's start by the console's real script, from a build that had none", {
    timeout: 300_000,
  }, () => {
    // The console's own script beside a dist/ without a stream (a build where ffmpeg was
    // missing), run as the demo runs it: ffmpeg encodes the stream (a few seconds).
    const root = console();
    cpSync(
      join(REPO_DIR, 'packages', 'console', 'scripts', 'stream.mjs'),
      join(root, 'scripts', 'stream.mjs'),
    );
    expect(hasFfmpeg(), 'ffmpeg (scripts/setup.sh installs it)').toBe(true);
    const made = ensureDemoStream(join(root, 'dist'), 'pnpm demo', { onMaking: () => {} });
    expect(made).toEqual({ kind: 'made' });
    const info = JSON.parse(readFileSync(join(root, 'dist', 'stream', 'stream.json'), 'utf8'));
    expect(info.segmentSeconds).toBeGreaterThan(0);
    expect(readFileSync(join(root, 'dist', 'stream', 'hls', 'media.m3u8'), 'utf8')).toMatch(
      /^#EXTM3U\n/,
    );
    expect(existsSync(join(root, 'dist', 'stream', 'dash', 'manifest.mpd'))).toBe(true);
  });

  it('is missing without ffmpeg: the first lines say so, and the one command that fixes it', () => {
    const root = console();
    writeFileSync(join(root, 'scripts', 'stream.mjs'), 'process.exit(1)');
    const missing = ensureDemoStream(join(root, 'dist'), 'pnpm demo', { ffmpeg: false });
    const install = installFfmpegCommand();
    expect(missing).toEqual({
      kind: 'missing',
      why: 'ffmpeg is not installed',
      fix: install.startsWith('install ')
        ? `${install}, then pnpm demo`
        : `${install} && pnpm demo`,
    });
    const lines = streamLines(missing, 'http://127.0.0.1:8080/console/players');
    expect(lines[0]).toBe(
      'The players page (http://127.0.0.1:8080/console/players) has no demo stream: ffmpeg is not installed.',
    );
    expect(lines[1]).toBe(
      `  To give it one, run: ${missing.kind === 'missing' ? missing.fix : ''}`,
    );
    // As root no sudo; as another user sudo; apt-get where it is.
    expect(installFfmpegCommand(true)).not.toMatch(/^sudo /);
    if (existsSync('/usr/bin/apt-get')) {
      expect(installFfmpegCommand(false)).toBe('sudo apt-get install -y ffmpeg');
      expect(installFfmpegCommand(true)).toBe('apt-get install -y ffmpeg');
    }
  });

  it('of an installed console built without ffmpeg: said, with no command to run', () => {
    const dist = join(tempDir(), 'dist');
    mkdirSync(dist);
    const missing = ensureDemoStream(dist, 'wai-steer demo', { ffmpeg: true });
    expect(missing).toEqual({
      kind: 'missing',
      why: 'this installation was built without ffmpeg',
      fix: undefined,
    });
    expect(streamLines(missing, 'http://h/console/players')[1]).toBe(
      '  It plays a stream you name instead.',
    );
    expect(streamLines({ kind: 'ready' }, 'http://h/console/players')).toEqual([]);
  });
});
