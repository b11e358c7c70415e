import { formatDurationExact, formatInstantExact, toRfc3339 } from '@wai-steering/config-text';
import { windowAt } from '@wai-steering/evidence';
import type { Command } from '../internal/command.js';
import { readPolicyFile } from '../internal/records.js';
import { instantOption, spanText } from '../internal/time.js';

/** An instant of the JSON: its exact RFC 3339 form (µs past 9999 have none). */
function jsonTime(us: bigint): string {
  return toRfc3339(us) ?? `${us} us (beyond the dates a calendar prints)`;
}

/** The periods of [a, b), each [start, end) of P µs. */
function periodsOf(a: bigint, b: bigint, p: bigint): { start: bigint; end: bigint }[] {
  const out: { start: bigint; end: bigint }[] = [];
  for (let s = a; s < b && out.length < 10_000; s += p) out.push({ start: s, end: s + p });
  return out;
}

export const windowCommand: Command = {
  name: ['window'],
  summary: 'Print the evidence window at an instant (§5.1) and the periods hops must sign.',
  options: {
    policy: { type: 'string', arg: 'FILE', description: 'the policy (WSP1)', required: true },
    t: {
      type: 'string',
      arg: 'TIME',
      description: 'the instant: room-clock µs, an RFC 3339 time, now, now+6s (default now)',
    },
    json: { type: 'boolean', description: 'print the window and the periods as JSON' },
  },
  description: `
The room clock counts microseconds since 1970-01-01T00:00:00Z (the wall clock of a steering
server). A decision at t reads the records of the window [a, b) of §5.1:

  b = ⌊(t − lag) / period⌋ × period   (0 when t < lag)
  a = b − window                      (0 when b < window)

with the policy's period, window and lag in µs. Each hop signs one record per period, a period
being [k × period, (k + 1) × period) µs: the window's periods are those a decision at t names;
the next period, [b, b + period), must be signed and ingested before b + period + lag, when the
window moves on to hold it. Every instant is printed as RFC 3339 (UTC, to the millisecond) with
its exact µs beside it; --json gives both exactly.

TIME is room-clock µs (10500000), an RFC 3339 time (2026-12-01T08:00:00Z, or with an offset),
now, or now+D / now-D with D a duration (6s, 1m, 500ms).`,
  run(ctx) {
    const { value: policy } = readPolicyFile(ctx.path(ctx.string('policy')));
    const t = instantOption(ctx.optional('t') ?? 'now', 't');
    const P = policy.period_us;
    const { a, b } = windowAt(policy, t);
    const periods = periodsOf(a, b, P);
    const next = { start: b, end: b + P, by: b + P + policy.lag_us };
    if (ctx.flag('json')) {
      const span = (s: { start: bigint; end: bigint }) => ({
        start: String(s.start),
        end: String(s.end),
        start_time: jsonTime(s.start),
        end_time: jsonTime(s.end),
      });
      ctx.out(
        `${JSON.stringify({
          t: String(t),
          t_time: jsonTime(t),
          period_us: String(P),
          window_us: String(policy.window_us),
          lag_us: String(policy.lag_us),
          a: String(a),
          b: String(b),
          a_time: jsonTime(a),
          b_time: jsonTime(b),
          periods: periods.map(span),
          next: { ...span(next), by: String(next.by), by_time: jsonTime(next.by) },
        })}\n`,
      );
      return 0;
    }
    const lines = [
      `t        ${formatInstantExact(t)}`,
      `policy   period ${formatDurationExact(P)}, window ${formatDurationExact(policy.window_us)}, lag ${formatDurationExact(policy.lag_us)}`,
      `window   ${spanText(a, b)}`,
      `         (b = ⌊(t − lag) / period⌋ × period, a = b − window)`,
      `periods  ${periods.length} in the window, one record per hop each:`,
      ...periods.map((s) => `  ${spanText(s.start, s.end)}`),
      `next     ${spanText(next.start, next.end)}`,
      `         to sign and ingest by ${formatInstantExact(next.by)}: its end + lag`,
    ];
    ctx.out(`${lines.join('\n')}\n`);
    return 0;
  },
};
