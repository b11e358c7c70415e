// The repository's launcher (`pnpm wai-steer`, `pnpm demo`: scripts/repo-bin.mjs), run in a copy
// of the checkout's shape whose turbo is a stand-in that takes as long as a test says: a build
// that takes a while says so on stderr (the first `pnpm demo` is not silent), an up-to-date one
// says nothing, and the commands the CLI prints to run next are named as this checkout runs them.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { PACKAGE_DIR } from './paths.js';

/** A root with the launcher, a turbo that sleeps `buildMs` then exits `status`, and a stub bin. */
function checkout(buildMs: number, status = 0): string {
  const root = tempDir();
  mkdirSync(join(root, 'packages', 'cli', 'scripts'), { recursive: true });
  mkdirSync(join(root, 'packages', 'cli', 'dist'), { recursive: true });
  mkdirSync(join(root, 'node_modules', 'turbo', 'bin'), { recursive: true });
  copyFileSync(
    join(PACKAGE_DIR, 'scripts', 'repo-bin.mjs'),
    join(root, 'packages', 'cli', 'scripts', 'repo-bin.mjs'),
  );
  writeFileSync(join(root, 'package.json'), '{"name":"root","private":true}\n');
  writeFileSync(
    join(root, 'node_modules', 'turbo', 'package.json'),
    '{"name":"turbo","version":"0.0.0","bin":{"turbo":"bin/turbo"}}\n',
  );
  writeFileSync(
    join(root, 'node_modules', 'turbo', 'bin', 'turbo'),
    `console.log('turbo ran'); setTimeout(() => process.exit(${status}), ${buildMs});\n`,
  );
  writeFileSync(
    join(root, 'packages', 'cli', 'dist', 'main.js'),
    'console.log("ran as " + process.env.WAI_STEER_AS + " with " + process.argv.slice(2).join(" "));\n',
  );
  return root;
}

function launch(root: string, noticeMs: number, ...args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, WAI_STEER_BUILD_NOTICE_MS: String(noticeMs) };
  delete env.WAI_STEER_AS;
  delete env.INIT_CWD;
  return spawnSync(
    process.execPath,
    [join(root, 'packages', 'cli', 'scripts', 'repo-bin.mjs'), ...args],
    { encoding: 'utf8', env },
  );
}

describe('the repository launcher', () => {
  it('says on stderr that it builds when the build takes a while, then how long it took', () => {
    const r = launch(checkout(600), 100, 'demo');
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(
      /^wai-steer: building the command line and the packages it uses \(the first build of a checkout takes a minute or two; later ones, only what changed\)…\nwai-steer: built in \d+ s\n$/,
    );
    expect(r.stdout).toBe('ran as pnpm wai-steer with demo\n');
  });

  it('says nothing when the build is done at once (an up-to-date checkout)', () => {
    const r = launch(checkout(0), 60_000, '--version');
    expect([r.status, r.stderr, r.stdout]).toEqual([
      0,
      '',
      'ran as pnpm wai-steer with --version\n',
    ]);
  });

  it("shows the build's output when it fails, and exits 2", () => {
    const r = launch(checkout(0, 1), 60_000, 'demo');
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      'turbo ran\nwai-steer: building the CLI failed (see above); run `pnpm build`\n',
    );
    expect(r.stdout).toBe('');
  });
});
