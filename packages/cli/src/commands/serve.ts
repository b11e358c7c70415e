import type { RunningServer } from '@wai-steering/server';
import type { Command } from '../internal/command.js';
import { UserError } from '../internal/errors.js';

function issuesOf(e: unknown): readonly string[] | undefined {
  if (!(e instanceof Error) || e.name !== 'ConfigError') return undefined;
  const issues = (e as { issues?: unknown }).issues;
  return Array.isArray(issues) ? (issues as string[]) : [e.message];
}

function configProblem(path: string, issues: readonly string[]): UserError {
  const n = issues.length;
  const more = n > 1 ? ` (and ${n - 1} more problem${n > 2 ? 's' : ''})` : '';
  return new UserError(`server config ${path}: ${issues[0] ?? 'does not read'}${more}`);
}

export const serve: Command = {
  name: ['serve'],
  summary: 'Start the steering server (@wai-steering/server) from its config.',
  options: {
    config: {
      type: 'string',
      arg: 'FILE',
      description: "the server's config (YAML or JSON)",
      required: true,
    },
  },
  description: `
Loads the server's config and starts the steering server: it answers steering requests with
signed decisions and their manifests, serves each decision at its URI, and ingests per-hop
records. It prints where it listens on stderr and runs until SIGINT or SIGTERM, then closes
cleanly (answers what is queued, writes the store). SIGHUP reads the key log file again (after
the origin published a new head); a head that does not verify is refused with a warning and the
one in use stays. The config's format is the server's (see
its README); a config that does not read is one line on stderr naming the field.`,
  async run(ctx) {
    const path = ctx.path(ctx.string('config'));
    // Loaded only here: the server brings its native store, which no other command needs.
    const { loadConfig, startServer } = await import('@wai-steering/server');
    let running: RunningServer;
    try {
      running = await startServer(loadConfig(path));
    } catch (e) {
      const issues = issuesOf(e);
      if (issues !== undefined) throw configProblem(path, issues);
      throw e;
    }
    for (const warning of running.warnings) ctx.warn(warning);
    ctx.io.stderr.write(
      `wai-steer: serving at ${running.url} (SIGHUP reads the key log again; SIGINT or SIGTERM stops)\n`,
    );
    // SIGHUP: the origin published a new key log head (a key added or revoked). A head that does
    // not verify is refused with a warning, and the one in use stays.
    const reload = (): void => {
      running.reloadKeyLog().then(
        () => {
          ctx.io.stderr.write('wai-steer: key log read again\n');
        },
        (e: unknown) => {
          const issues = issuesOf(e);
          ctx.warn(`the key log was not reloaded: ${issues?.[0] ?? (e as Error).message}`);
        },
      );
    };
    if (ctx.io.onStop !== undefined) process.on('SIGHUP', reload);
    await new Promise<void>((resolve) => {
      const stop = async (): Promise<void> => {
        process.off('SIGHUP', reload);
        await running.close();
        resolve();
      };
      if (ctx.io.onStop === undefined) running.http.once('close', () => resolve());
      else ctx.io.onStop(stop);
    });
    return 0;
  },
};
