import type { Command } from '../internal/command.js';
import { EXIT, UserError } from '../internal/errors.js';

export const doctor: Command = {
  name: ['doctor'],
  summary:
    'Check a setup: config, keys, key log, URIs, store, clocks, hops; every problem and its fix.',
  usage: [
    'wai-steer doctor --config FILE [--hop FILE]… [--json]',
    'wai-steer doctor --hop FILE… [--json]',
  ],
  options: {
    config: { type: 'string', arg: 'FILE', description: "the steering server's config" },
    hop: {
      type: 'string',
      arg: 'FILE',
      multiple: true,
      description: "a hop agent's config (hop.yaml) to check too",
    },
    json: { type: 'boolean', description: 'print the findings as one JSON object' },
  },
  description: `
Checks a steering server's setup and the hop agents that feed it, and prints one list: every
problem with its fix, then warnings, each check that passed, and notes. It reads what the server
and the agent read at their start, with their own checks:

- the config (every field), the room, the key log and the policy (every problem at once, as
  serve says them), the steering key; the policy's server_uri, reload_uri and decision_uri
  against the listen address and public_url;
- the key log against the policy: every hop key listed with live/hop, not revoked, and with the
  energy/ label of the class it states (known from a --hop config or its last record);
- the files that hold secrets (the steering key, the session secret, hop keys, a config with a
  token or a password): readable by their owner alone;
- the store, opened as the server opens it (never created), the clock against what it holds,
  the key log head against the newest it kept;
- each hop's last record in the store (span, class, joules, bytes, how long ago) against the
  lag, and each pathway's status now, with why a pathway has no figure;
- the running server: /healthz at the listen address and at public_url, its clock, and a
  console served without auth where other machines reach it;
- with --hop, each agent's config (every field), its files, its key against the key log, its
  energy counter read once and its traffic source opened, its key on a pathway of the policy,
  its period, an energy source and (on an edge hop) a traffic source, this server among its
  servers.

Exit 0 when there is no problem (warnings aside), 1 when there is one. The server need not be
running: what it cannot check without it is said as a note. Run it before the first start (a
store that does not exist yet is a problem until serve --init makes it), after a change, and
when a pathway has no figure.`,
  exitStatus: `
  0 no problem (warnings aside); 1 a problem, each with its fix; 2 a usage error.`,
  async run(ctx) {
    const config = ctx.optional('config');
    const hops = ctx.list('hop').map((h) => ctx.path(h));
    if (config === undefined && hops.length === 0) {
      throw new UserError("doctor: give --config FILE (the server's config), --hop FILE, or both");
    }
    // Loaded only here: the checks open the store, which no other command than serve needs.
    const { runDoctor } = await import('../internal/doctor/index.js');
    const report = await runDoctor({
      ...(config === undefined ? {} : { config: ctx.path(config) }),
      hops,
    });
    ctx.out(ctx.flag('json') ? report.json() : report.text());
    return report.count('problem') === 0 ? EXIT.ok : EXIT.refused;
  },
};
