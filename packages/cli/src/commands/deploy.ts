import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { closestName } from '@wai-steering/config-text';
import type { Command } from '../internal/command.js';
import { UserError } from '../internal/errors.js';

const VERBS = ['install', 'status', 'start', 'stop', 'restart', 'reload', 'logs'] as const;
/** The verbs that only read. */
const READING = new Set(['status', 'logs']);

/**
 * deploy/install.sh: in a release, `share/deploy/` of the CLI's package (beside `dist/`); in a
 * checkout, `deploy/` of the repository.
 */
export function installScript(from: string = dirname(fileURLToPath(import.meta.url))): string {
  for (let d = from, i = 0; i < 6; i++, d = dirname(d)) {
    for (const candidate of [
      join(d, 'share', 'deploy', 'install.sh'),
      join(d, 'deploy', 'install.sh'),
    ]) {
      if (existsSync(candidate)) return candidate;
    }
  }
  throw new UserError(
    'deploy: no deploy/install.sh beside this wai-steer: install the release (the npm tarball or the Debian package) or run it from a checkout',
  );
}

export const deploy: Command = {
  name: ['deploy'],
  summary: 'Install the deployment of deploy/ on this machine, or see and run its services.',
  args: ['VERB', '[SERVICE…]'],
  minArgs: 1,
  maxArgs: 64,
  options: {
    root: {
      type: 'string',
      arg: 'DIR',
      description: "the deployment installed under DIR (install.sh's WAI_ROOT) instead of /",
    },
    follow: { type: 'boolean', description: 'logs: go on printing what the services write' },
    lines: { type: 'string', arg: 'N', description: 'logs: the last N lines of each (default 50)' },
  },
  description: `
The deployment of deploy/ (docs/deploy.md): two steering server instances on PostgreSQL behind
HAProxy, an edge (nginx) with a hop agent per pathway, the console behind a token, log
rotation. VERB is one of:
  install            install (or update) and start everything as root, then check it with
                     doctor (settings: install.sh's environment variables, such as WAI_HOST)
  status             each service: running (its pid, since when) or not; exit 3 if one is not
  start              start what is not running (after a reboot, or a container's restart)
  stop               stop every service (or the SERVICEs named)
  restart            restart the services (or the SERVICEs named); PostgreSQL is started when it
                     is not running, never restarted under the instances
  reload             the instances (or the SERVICEs named) read the key log and the policy again
  logs               the services' logs (or the SERVICEs'), --lines N, --follow
A SERVICE is named as its unit: wai-steer@a, wai-steer-hop@b, wai-steering-haproxy. They work
under systemd and, where systemd does not run (a container), under deploy/supervise.mjs, with
the settings the last install saved. It runs deploy/install.sh VERB, which does the same.`,
  exitStatus: '0 done; 2 a usage error; 3 (status) a service is not running; 1 install.sh failed',
  async run(ctx) {
    const verb = ctx.args[0]!;
    if (!(VERBS as readonly string[]).includes(verb)) {
      const near = closestName(verb, VERBS);
      throw new UserError(
        `deploy: unknown verb "${verb}"${near === undefined ? '' : ` (did you mean "${near}"?)`} (${VERBS.join(', ')})`,
      );
    }
    const services = ctx.args.slice(1);
    if (verb === 'install' && services.length > 0) {
      throw new UserError(
        'deploy install takes no SERVICE: its settings are environment variables',
      );
    }
    if (!READING.has(verb) && process.getuid?.() !== 0) {
      throw new UserError(`deploy ${verb}: run it as root (sudo wai-steer deploy ${verb})`);
    }
    const lines = ctx.optional('lines');
    if (lines !== undefined && !/^[1-9][0-9]*$/.test(lines)) {
      throw new UserError(`deploy: --lines is a number of lines, not "${lines}"`);
    }
    if ((lines !== undefined || ctx.flag('follow')) && verb !== 'logs') {
      throw new UserError('deploy: --lines and --follow go with logs');
    }
    const script = installScript();
    const env: NodeJS.ProcessEnv = { ...process.env };
    const root = ctx.optional('root');
    if (root !== undefined) env.WAI_ROOT = ctx.path(root);
    const etc = join(env.WAI_ROOT ?? '/', 'etc', 'wai-steering');
    if (verb !== 'install' && verb !== 'stop' && !existsSync(join(etc, 'install.env'))) {
      throw new UserError(
        `deploy ${verb}: no deployment installed at ${etc} (no install.env there): install it first (sudo wai-steer deploy install)${root === undefined ? ', or name its root with --root' : ''}`,
      );
    }
    // The install's services run this wai-steer, unless told otherwise.
    const main = join(dirname(fileURLToPath(import.meta.url)), 'main.js');
    if (verb === 'install' && env.WAI_CLI === undefined && existsSync(main)) env.WAI_CLI = main;
    const args = [
      script,
      verb,
      ...(ctx.flag('follow') ? ['--follow'] : []),
      ...(lines === undefined ? [] : ['--lines', lines]),
      ...services,
    ];
    const child = spawn('bash', args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (b: Buffer) => ctx.io.stdout.write(b));
    child.stderr.on('data', (b: Buffer) => ctx.io.stderr.write(b));
    ctx.io.onStop?.(async () => {
      child.kill('SIGTERM');
    });
    return await new Promise<number>((resolve) => {
      child.on('error', (e) =>
        resolve(Promise.reject(new UserError(`deploy: bash: ${e.message}`))),
      );
      child.on('close', (code) => resolve(code ?? 1));
    });
  },
};
