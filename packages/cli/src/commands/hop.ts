import { readHopRecord, unwrap } from '@wai-steering/wire';
import type { Command } from '../internal/command.js';
import { UserError } from '../internal/errors.js';
import { hopRecordJson } from '../internal/show.js';
import { spanOption } from '../internal/time.js';

export const hopRun: Command = {
  name: ['hop', 'run'],
  summary: 'Run the hop agent: sign and deliver a per-hop record (WMH1) every period.',
  options: {
    config: {
      type: 'string',
      arg: 'FILE',
      description: "the agent's config (hop.yaml)",
      required: true,
    },
    policy: {
      type: 'string',
      arg: 'FILE',
      description:
        "the steering policy (WSP1) whose period P and lag L it runs on (instead of the config's)",
    },
    once: {
      type: 'boolean',
      description:
        'cut one record (the last period over, or --span) and print it as JSON (neither spooled nor sent)',
    },
    span: {
      type: 'string',
      arg: 'START..END',
      description:
        'with --once: the span (default the last period over), two instants: µs, RFC 3339, now-4s',
    },
    'dry-run': {
      type: 'boolean',
      description: 'run on the period, print each record as JSON, neither spool nor send',
    },
  },
  description: `
The hop agent (@wai-steering/agent). At start it checks that the room's key log lists the hop's
key with live/hop and, for a metered source, energy/<label> of its class (companion C5.4), and
that its sources can be read; then, on every period P of the room clock, it reads the energy and
traffic sources, signs the period's record, writes it to the spool (synced) and sends it to
every steering server until each takes it. A restart resumes from the spool. One JSON log line a
period on stderr (joules, bytes, sessions, where it was sent); SIGINT or SIGTERM stops it.
The config's format, its sources and what each states: docs/metering.md.`,
  async run(ctx) {
    const path = ctx.path(ctx.string('config'));
    const agentLib = await import('@wai-steering/agent');
    const { AgentConfigError, createHopAgent, readHopConfigFile, serveAgentHttp } = agentLib;
    const userError = (e: unknown): never => {
      if (e instanceof AgentConfigError) throw new UserError(e.message);
      throw e;
    };
    let config: ReturnType<typeof readHopConfigFile>['config'];
    try {
      const read = readHopConfigFile(path);
      for (const warning of read.warnings) ctx.warn(`hop config ${path}: ${warning}`);
      config = read.config;
    } catch (e) {
      return userError(e);
    }
    const policy = ctx.optional('policy');
    if (policy !== undefined)
      config = { ...config, policy: ctx.path(policy), period: undefined, lag: undefined };
    const once = ctx.flag('once');
    const dryRun = ctx.flag('dry-run');
    const spanText = ctx.optional('span');
    if (spanText !== undefined && !once) throw new UserError('--span goes with --once');
    if (once && dryRun)
      throw new UserError('--once neither spools nor sends: --dry-run is not needed');
    const log = (line: Record<string, unknown>) => ctx.io.stderr.write(`${JSON.stringify(line)}\n`);
    const printRecord = (bytes: Uint8Array) =>
      ctx.out(`${JSON.stringify(hopRecordJson(unwrap(readHopRecord(bytes))))}\n`);
    let agent: InstanceType<typeof agentLib.HopAgent>;
    try {
      agent = createHopAgent(config, {
        log,
        ...(dryRun ? { dryRun: true, onRecord: (r) => printRecord(r.bytes) } : {}),
      });
    } catch (e) {
      return userError(e);
    }
    if (once) {
      // By default the last period over: what the sources hold of it is there to read now.
      const now = BigInt(Date.now()) * 1000n;
      const span =
        spanText === undefined
          ? { start: (now / agent.P - 1n) * agent.P, end: (now / agent.P) * agent.P }
          : spanOption(spanText, 'span', () => now);
      let rec: Awaited<ReturnType<typeof agent.cutOnce>>;
      try {
        rec = await agent.cutOnce(span);
      } catch (e) {
        return userError(e);
      }
      if (rec.unmetered !== undefined)
        ctx.warn(`the record is the unmetered marker: ${rec.unmetered}`);
      printRecord(rec.bytes);
      return 0;
    }
    // A stop asked for while the agent starts (a SIGTERM as it fills the periods it missed) is
    // taken once it has started: it stops cleanly either way.
    let stopAsked: () => void = () => {};
    const stopping = new Promise<void>((resolve) => {
      stopAsked = resolve;
    });
    ctx.io.onStop?.(async () => stopAsked());
    try {
      await agent.start();
    } catch (e) {
      await agent.stop();
      return userError(e);
    }
    const http =
      config.listen === undefined
        ? undefined
        : await serveAgentHttp(agent, config.listen.host, config.listen.port).catch(
            async (e: Error) => {
              await agent.stop();
              throw new UserError(
                `listen ${config.listen!.host}:${config.listen!.port}: ${e.message}`,
              );
            },
          );
    // Until stopped (without `onStop`, a caller of its own: it runs on).
    await stopping;
    await agent.stop();
    await new Promise<void>((r) => (http === undefined ? r() : http.close(() => r())));
    return 0;
  },
};
