import { createServer } from 'node:net';
import { formatDuration, formatInstant } from '@wai-steering/config-text';
import type { Command } from '../internal/command.js';
import type { RunningDemo } from '../internal/demo.js';
import { type DemoStream, ensureDemoStream } from '../internal/demo-stream.js';
import { UserError } from '../internal/errors.js';
import { selfName } from '../internal/self.js';
import { durationOption } from '../internal/time.js';

/**
 * The port the demo listens on: `port`, checked free on `host` first (so that a port in use is
 * said with its fix before any file is written), or any free port for 0.
 */
export async function demoPort(host: string, port: number): Promise<number> {
  const probe = createServer();
  try {
    return await new Promise<number>((resolve, reject) => {
      probe.once('error', reject);
      probe.listen({ host, port, exclusive: true }, () => {
        resolve((probe.address() as { port: number }).port);
      });
    });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      throw new UserError(
        `demo: port ${port} on ${host} is in use (by another demo or server?): run with --port N for another port, or --port 0 for any free port`,
      );
    }
    if (code === 'EACCES') {
      throw new UserError(
        `demo: port ${port} needs privileges to listen on: run with --port N above 1023, or --port 0 for any free port`,
      );
    }
    throw new UserError(`demo: cannot listen on ${host}:${port} (${code ?? e}): check --host`);
  } finally {
    await new Promise<void>((r) => probe.close(() => r()));
  }
}

/** The first lines of the demo's output: where the players page is, and its stream. */
export function streamLines(stream: DemoStream, players: string | undefined): string[] {
  if (players === undefined) return [];
  if (stream.kind !== 'missing') return [];
  return [
    `The players page (${players}) has no demo stream: ${stream.why}.`,
    stream.fix === undefined
      ? '  It plays a stream you name instead.'
      : `  To give it one, run: ${stream.fix}`,
    '',
  ];
}

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
    port: {
      type: 'string',
      arg: 'PORT',
      description: 'the port to listen on (default 8080; 0 for any free port, printed)',
    },
    period: {
      type: 'string',
      arg: 'DURATION',
      description: 'the policy period P, a duration with its unit (default 2s, at least 100ms)',
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
  renamed: {
    'period-ms': (v) =>
      `the period is --period, a duration with its unit: write --period ${v !== undefined && /^\d+$/.test(v) ? `${v}ms` : '2s'}`,
  },
  description: `
Sets up a demo room in DIR: keys (JWK files), a room with an origin and its key log, a policy of
three pathways (one a clone) whose URIs name HOST:PORT, and the server's config. Then it starts
the steering server on the embedded store (DIR/steering.sqlite) and simulated hops that post
signed per-hop records every period, and prints the steering URL, the HLS tag, the DASH element
and a curl line to try, and the players page, where a real player plays the console's demo
stream steered by the server (made with ffmpeg at the first start when the build had none).
Nothing is canned: every manifest served is a decision over the records
the hops posted, signed and archived, which \`wai-steer verify --url\` verifies. It runs until
SIGINT or SIGTERM (Ctrl-C).`,
  async run(ctx) {
    const host = ctx.optional('host') ?? '127.0.0.1';
    const asked = integerOption(ctx.optional('port') ?? '8080', 'port', 0, 65535);
    const periodText = ctx.optional('period') ?? '2s';
    const periodUs = durationOption(periodText, 'period');
    if (periodUs % 1000n !== 0n || periodUs < 100_000n || periodUs > 86_400_000_000n) {
      throw new UserError(
        `demo: --period ${periodText}: from 100ms to 1d, a whole number of milliseconds`,
      );
    }
    const periodMs = Number(periodUs / 1000n);
    const port = await demoPort(host, asked);
    const dir = ctx.path(ctx.optional('dir') ?? '.demo');
    const verbose = ctx.flag('verbose');
    const fillSite = ctx.optional('fill-site');
    const err = (line: string): void => {
      ctx.io.stderr.write(`wai-steer: demo: ${line}\n`);
    };
    // Loaded only here: the server brings its native store, which no other command needs.
    const { runDemo } = await import('../internal/demo.js');
    const { consoleDistDir } = await import('@wai-steering/server/testkit');
    // The players page's stream, before the server reads the console's files.
    const again = selfName() === 'wai-steer' ? 'wai-steer demo' : 'pnpm demo';
    const stream = ensureDemoStream(consoleDistDir(), again, {
      onMaking: () => err("making the players page's demo stream with ffmpeg (once: it is kept)…"),
    });
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
    const players =
      running.server.consoleUrl === null ? undefined : `${running.server.consoleUrl}players`;
    const lines = [
      ...streamLines(stream, players),
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
            `Players:      ${players}${stream.kind === 'missing' ? ' (no demo stream: see the first lines)' : ''}`,
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
