// deploy/supervise.mjs: a unit file read as systemd reads it (sections, continuation lines,
// quoting, %i, ${VAR}, Environment= and EnvironmentFile=), the deployment's own units read to the
// commands they run, and a unit supervised for real: its output appended, a failure restarted,
// SIGTERM stopping it.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module of the deployment, without types.
import * as sup from '../supervise.mjs';

const HERE = join(dirname(fileURLToPath(import.meta.url)), '..');
const dir = mkdtempSync(join(tmpdir(), 'wai-supervise-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('reading a unit', () => {
  it('splits words as systemd does: quotes, escapes, blanks', () => {
    expect(sup.splitWords(`/usr/sbin/nginx -c "/etc/a b.conf" -g 'daemon off;' x\\ y`)).toEqual([
      '/usr/sbin/nginx',
      '-c',
      '/etc/a b.conf',
      '-g',
      'daemon off;',
      'x y',
    ]);
    expect(() => sup.splitWords('a "b')).toThrow(/unterminated quote/);
  });

  it('reads sections, continuation lines and comments, and expands %i, %% and $VAR', () => {
    // systemd's ${A}, written without a template literal's look.
    const varA = ['$', '{A}'].join('');
    const s = sup.serviceOf(
      [
        '[Unit]',
        'Description=x # not a comment',
        '# a comment',
        '[Service]',
        'Environment=A=1 "B=two words"',
        'ExecStart=/bin/run --config /etc/%i.yaml \\',
        `  --pct 100%% ${varA}`,
        'User=svc',
        'SupplementaryGroups=adm video',
        'StandardOutput=append:/var/log/%i.log',
        'Restart=on-failure',
        'RestartSec=2',
      ].join('\n'),
      'a',
    );
    expect(s.start.words).toEqual(['/bin/run', '--config', '/etc/a.yaml', '--pct', '100%', varA]);
    expect(s.env).toEqual({ A: '1', B: 'two words' });
    expect(sup.expandVars(varA, s.env)).toBe('1');
    expect(sup.expandVars('$B', s.env)).toBe('two words');
    expect([s.user, s.groups, s.stdout, s.restart, s.restartSec]).toEqual([
      'svc',
      ['adm', 'video'],
      'append:/var/log/a.log',
      'on-failure',
      2,
    ]);
  });

  it("reads the deployment's units to the commands install.sh documents", () => {
    const unit = (f: string) => readFileSync(join(HERE, 'systemd', f), 'utf8');
    expect(sup.serviceOf(unit('wai-steer@.service'), 'b').start.words).toEqual([
      '/usr/local/bin/wai-steer',
      'serve',
      '--config',
      '/etc/wai-steering/steer-b.yaml',
      '--workers',
      'auto',
    ]);
    const hop = sup.serviceOf(unit('wai-steer-hop@.service'), 'a');
    expect([hop.start.words.slice(1), hop.user, hop.groups]).toEqual([
      ['hop', 'run', '--config', '/etc/wai-steering/hop-a.yaml'],
      'wai-steering',
      ['adm'],
    ]);
    const haproxy = sup.serviceOf(unit('wai-steering-haproxy.service'));
    expect(haproxy.envFiles).toEqual([{ path: '/etc/wai-steering/haproxy.env', optional: false }]);
    expect(sup.serviceOf(unit('wai-steering-edge.service')).pre).toHaveLength(1);
  });
});

describe('supervising a unit', () => {
  it('appends its output, starts it again after a failure, and stops it on SIGTERM', async () => {
    const log = join(dir, 'out.log');
    const count = join(dir, 'count');
    writeFileSync(join(dir, 'env'), 'GREETING=hello\n# a comment\n');
    writeFileSync(
      join(dir, 'demo@.service'),
      [
        '[Service]',
        `EnvironmentFile=${join(dir, 'env')}`,
        // Fails the first time, then runs until stopped.
        `ExecStart=/bin/sh -c 'echo "$GREETING %i"; if [ ! -f ${count} ]; then touch ${count}; exit 3; fi; exec sleep 600'`,
        `StandardOutput=append:${log}`,
        'Restart=on-failure',
        'RestartSec=100ms',
        'KillSignal=SIGTERM',
      ].join('\n'),
    );
    const child = spawn(
      process.execPath,
      [join(HERE, 'supervise.mjs'), join(dir, 'demo@.service'), 'x'],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let err = '';
    child.stderr.on('data', (b) => (err += String(b)));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    await expect
      .poll(
        () =>
          readFileSync(log, 'utf8')
            .split('\n')
            .filter((l) => l === 'hello x').length,
        {
          timeout: 30_000,
          interval: 50,
        },
      )
      .toBe(2);
    expect(err).toContain('exited (code 3)');
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});

describe('reloading a unit', () => {
  it("runs ExecReload= with $MAINPID the service's pid on SIGHUP, as systemctl reload does", async () => {
    const log = join(dir, 'reload.log');
    writeFileSync(
      join(dir, 'reload.service'),
      [
        '[Service]',
        // Says when it is ready, then says each SIGHUP it is sent.
        `ExecStart=/bin/sh -c 'trap "echo reloaded" HUP; echo ready; while :; do sleep 0.1; done'`,
        'ExecReload=/bin/kill -HUP $MAINPID',
        `StandardOutput=append:${log}`,
      ].join('\n'),
    );
    const child = spawn(
      process.execPath,
      [join(HERE, 'supervise.mjs'), join(dir, 'reload.service')],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let err = '';
    child.stderr.on('data', (b) => (err += String(b)));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const lines = () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n') : []);
    await expect.poll(lines, { timeout: 30_000, interval: 50 }).toContain('ready');
    child.kill('SIGHUP');
    await expect.poll(lines, { timeout: 30_000, interval: 50 }).toContain('reloaded');
    await expect.poll(() => err, { timeout: 30_000, interval: 50 }).toContain('reloaded');
    // The supervisor is still there, and so is its service: a reload is not a restart.
    expect(lines().filter((l) => l === 'ready')).toHaveLength(1);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
