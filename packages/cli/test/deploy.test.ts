// `wai-steer deploy`: the command finds deploy/install.sh and refuses what is the user's to fix
// in one line (exit 2). Its verbs run against a real deployment in deploy/'s integration test.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { installScript } from '../src/commands/deploy.js';
import { cli } from './helpers.js';
import { REPO_DIR } from './paths.js';

const dir = mkdtempSync(join(tmpdir(), 'wai-deploy-cmd-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('wai-steer deploy', () => {
  it("finds the checkout's deploy/install.sh, and a release's share/deploy/install.sh first", () => {
    expect(installScript()).toBe(join(REPO_DIR, 'deploy', 'install.sh'));
    // A release: share/deploy/ beside dist/.
    const release = join(dir, 'pkg');
    mkdirSync(join(release, 'share', 'deploy'), { recursive: true });
    mkdirSync(join(release, 'dist'));
    writeFileSync(join(release, 'share', 'deploy', 'install.sh'), '');
    expect(installScript(join(release, 'dist'))).toBe(
      join(release, 'share', 'deploy', 'install.sh'),
    );
    mkdirSync(join(dir, 'bare', 'dist'), { recursive: true });
    expect(() => installScript(join(dir, 'bare', 'dist'))).toThrow(/no deploy\/install\.sh/);
  });

  it("refuses the user's mistakes in one line, exit 2", async () => {
    const typo = await cli(['deploy', 'staus'], dir);
    expect([typo.code, typo.stderr]).toEqual([
      2,
      'wai-steer: deploy: unknown verb "staus" (did you mean "status"?) (install, status, start, stop, restart, reload, logs)\n',
    ]);
    const none = await cli(['deploy', 'status', '--root', dir], dir);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(
      /^wai-steer: deploy status: no deployment installed at .*\/etc\/wai-steering \(no install\.env there\): install it first/,
    );
    const lines = await cli(['deploy', 'logs', '--lines', 'ten', '--root', dir], dir);
    expect([lines.code, lines.stderr]).toEqual([
      2,
      'wai-steer: deploy: --lines is a number of lines, not "ten"\n',
    ]);
    const follow = await cli(['deploy', 'status', '--follow', '--root', dir], dir);
    expect([follow.code, follow.stderr]).toEqual([
      2,
      'wai-steer: deploy: --lines and --follow go with logs\n',
    ]);
    const install = await cli(['deploy', 'install', 'wai-steer@a'], dir);
    expect(install.code).toBe(2);
    expect(install.stderr).toMatch(/deploy install takes no SERVICE/);
  });
});
