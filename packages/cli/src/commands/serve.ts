import type { RunningServer } from '@wai-steering/server';
import type { Command } from '../internal/command.js';
import { UserError } from '../internal/errors.js';

function issuesOf(e: unknown): readonly string[] | undefined {
  if (!(e instanceof Error) || e.name !== 'ConfigError') return undefined;
  const issues = (e as { issues?: unknown }).issues;
  return Array.isArray(issues) ? (issues as string[]) : [e.message];
}

/** `--workers`: a whole number from 1 to 256, or `auto`. */
function parseWorkers(value: string | undefined): number | 'auto' {
  if (value === undefined) return 1;
  if (value === 'auto') return 'auto';
  if (/^[0-9]+$/.test(value) && Number(value) >= 1 && Number(value) <= 256) return Number(value);
  throw new UserError(
    `--workers: expected a number of workers from 1 to 256, or "auto" (got "${value}")`,
  );
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
    workers: {
      type: 'string',
      arg: 'N|auto',
      description: 'worker processes sharing the socket, the store and the loads (default 1)',
    },
  },
  description: `
Loads the server's config and starts the steering server: it answers steering requests with
signed decisions and their manifests, serves each decision at its URI, and ingests per-hop
records. It prints where it listens on stderr and runs until SIGINT or SIGTERM, then closes
cleanly (answers what is queued, writes the store). SIGHUP reads the key log file again (after
the origin published a new head); a head that does not verify is refused with a warning and the
one in use stays. The config's format is the server's (see
its README); a config that does not read is one line on stderr naming the field.

--workers N runs N worker processes (auto: one per core) sharing the listening socket, the
store (SQLite in WAL mode, or PostgreSQL) and the loads; a worker that dies is started again.`,
  async run(ctx) {
    const path = ctx.path(ctx.string('config'));
    const workers = parseWorkers(ctx.optional('workers'));
    // Loaded only here: the server brings its native store, which no other command needs.
    const { loadConfig, startServer, runWorkers } = await import('@wai-steering/server');
    const cluster = (await import('node:cluster')).default;
    if (workers !== 1 && cluster.isPrimary) {
      let config: ReturnType<typeof loadConfig>;
      try {
        config = loadConfig(path);
      } catch (e) {
        const issues = issuesOf(e);
        if (issues !== undefined) throw configProblem(path, issues);
        throw e;
      }
      if (config.store.path === ':memory:') {
        throw new UserError(
          `server config ${path}: store.path: ":memory:" cannot be shared by --workers; name a file or a PostgreSQL store.url`,
        );
      }
      const pool = await runWorkers({
        workers,
        heartbeatMs: config.instances?.heartbeat ?? 250,
        dropAfterMs: config.instances?.dropAfter ?? 1000,
        log: (line) => ctx.io.stderr.write(`${line}\n`),
      });
      ctx.io.stderr.write(
        `wai-steer: serving at ${pool.url} with ${pool.pids().length} workers (SIGHUP reads the key log again; SIGINT or SIGTERM stops)\n`,
      );
      // SIGHUP: each worker reads the key log file again.
      const forward = (): void => {
        for (const pid of pool.pids()) process.kill(pid, 'SIGHUP');
      };
      if (ctx.io.onStop !== undefined) process.on('SIGHUP', forward);
      await new Promise<void>((resolve) => {
        const stop = async (): Promise<void> => {
          process.off('SIGHUP', forward);
          await pool.close();
          resolve();
        };
        if (ctx.io.onStop === undefined) resolve();
        else ctx.io.onStop(stop);
      });
      return 0;
    }
    let running: RunningServer;
    try {
      running = await startServer(loadConfig(path), cluster.isWorker ? { worker: process } : {});
    } catch (e) {
      const issues = issuesOf(e);
      if (issues !== undefined) throw configProblem(path, issues);
      throw e;
    }
    // Of the workers of `--workers N`, the first tells the warnings; the primary where it serves.
    if (!cluster.isWorker || cluster.worker?.id === 1) {
      for (const warning of running.warnings) ctx.warn(warning);
    }
    if (!cluster.isWorker) {
      ctx.io.stderr.write(
        `wai-steer: serving at ${running.url} (SIGHUP reads the key log again; SIGINT or SIGTERM stops)\n`,
      );
    }
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
        // A worker of `--workers N`: its channel to the primary would keep it alive.
        if (cluster.isWorker) process.disconnect?.();
        resolve();
      };
      if (ctx.io.onStop === undefined) running.http.once('close', () => resolve());
      else ctx.io.onStop(stop);
    });
    return 0;
  },
};
