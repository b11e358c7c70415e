import { formatDuration, formatInstant } from '@wai-steering/config-text';
import type { Command } from '../internal/command.js';
import type { RunningDemo } from '../internal/demo.js';
import { UserError } from '../internal/errors.js';
import { selfName } from '../internal/self.js';

function integerOption(value: string, name: string, min: number, max: number): number {
  const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new UserError(
      `demo: --${name}: expected an integer from ${min} to ${max}, got "${value}"`,
    );
  }
  return n;
}

export const demo: Command = {
  name: ['demo'],
  summary: 'Run a demo: a fresh room, the steering server on it, and simulated hops.',
  options: {
    dir: {
      type: 'string',
      arg: 'DIR',
      description: 'where the demo writes its files (default .demo; its demo files are replaced)',
    },
    host: {
      type: 'string',
      arg: 'HOST',
      description: 'the address to listen on (default 127.0.0.1)',
    },
    port: { type: 'string', arg: 'PORT', description: 'the port to listen on (default 8080)' },
    'period-ms': {
      type: 'string',
      arg: 'MS',
      description: 'the policy period P, in milliseconds (default 2000, at least 100)',
    },
    verbose: {
      type: 'boolean',
      description: 'print a line on stderr for each period the hops post',
    },
    'fill-site': {
      type: 'string',
      arg: 'PATHWAY',
      description:
        "make the pathway's edge site fill up: it reports one slot fewer each period, and the server signs a policy whose capacity follows (docs/live-policy.md)",
    },
  },
  description: `
Sets up a demo room in DIR: keys (JWK files), a room with an origin and its key log, a policy of
three pathways (one a clone) whose URIs name HOST:PORT, and the server's config. Then it starts
the steering server on the embedded store (DIR/steering.sqlite) and simulated hops that post
signed per-hop records every period, and prints the steering URL, the HLS tag, the DASH element
and a curl line to try. Nothing is canned: every manifest served is a decision over the records
the hops posted, signed and archived, which \`wai-steer verify --url\` verifies. It runs until
SIGINT or SIGTERM (Ctrl-C).`,
  async run(ctx) {
    const port = integerOption(ctx.optional('port') ?? '8080', 'port', 1, 65535);
    const periodMs = integerOption(
      ctx.optional('period-ms') ?? '2000',
      'period-ms',
      100,
      86_400_000,
    );
    const dir = ctx.path(ctx.optional('dir') ?? '.demo');
    const host = ctx.optional('host') ?? '127.0.0.1';
    const verbose = ctx.flag('verbose');
    const fillSite = ctx.optional('fill-site');
    const err = (line: string): void => {
      ctx.io.stderr.write(`wai-steer: demo: ${line}\n`);
    };
    // Loaded only here: the server brings its native store, which no other command needs.
    const { runDemo } = await import('../internal/demo.js');
    let running: RunningDemo;
    try {
      running = await runDemo({
        dir,
        host,
        port,
        periodMs,
        onPeriod: (end, refused) => {
          for (const r of refused) err(`a record was refused: ${r}`);
          if (verbose) err(`the hops posted the period ending at ${formatInstant(end)}`);
        },
        ...(fillSite === undefined
          ? {}
          : {
              fillSite,
              onReport: (gas: number, status: number, body: string) => {
                if (status !== 200 && status !== 201)
                  err(`capacity report refused: ${body.trim()}`);
                else if (verbose) err(`${fillSite} reported ${gas} slots`);
              },
            }),
      });
    } catch (e) {
      if (e instanceof Error && e.name === 'ConfigError') {
        throw new UserError(`demo: ${e.message}`);
      }
      throw e;
    }
    const p = running.setup.policy;
    const lines = [
      `Steering server for the demo room, listening on ${running.server.url}`,
      `  files (keys, room, key log, policy, config, store): ${dir}`,
      `  pathways: ${p.pathways.map((x) => x.id).join(', ')}; P = ${formatDuration(p.period_us)}, W = ${formatDuration(p.window_us)}, L = ${formatDuration(p.lag_us)}`,
      ...running.server.warnings.map((w) => `  warning: ${w}`),
      ...(fillSite === undefined
        ? []
        : [
            `  ${fillSite}'s edge site fills up: one slot fewer each period; its capacity follows (live policy)`,
          ]),
      '',
      `Steering URL: ${running.steeringUrl}`,
      ...(running.server.consoleUrl === null
        ? []
        : [
            `Console:      ${running.server.consoleUrl}`,
            `Verifier:     ${running.server.verifyUrl}`,
            `Energy:       ${running.server.energyUrl}`,
          ]),
      '',
      'HLS multivariant playlist tag:',
      running.hlsTag,
      '',
      'DASH MPD element:',
      running.dashElement,
      '',
      'Try:',
      `curl '${running.steeringUrl}'`,
      `${selfName()} verify --url '${running.steeringUrl}'`,
      '',
      'Each manifest names its signed decision (science.transaction.wai-decision); every input a verifier needs is served by digest. Ctrl-C to stop.',
      '',
    ];
    ctx.out(lines.join('\n'));
    await new Promise<void>((resolve) => {
      const stop = async (): Promise<void> => {
        ctx.out('stopping…\n');
        await running.close();
        resolve();
      };
      if (ctx.io.onStop === undefined) running.server.http.once('close', () => resolve());
      else ctx.io.onStop(stop);
    });
    return 0;
  },
};
