import { dashElement, hlsTag } from '@wai-steering/manifest';
import type { Policy } from '@wai-steering/wire';
import type { Command, Context } from '../internal/command.js';
import { writeOutput } from '../internal/files.js';
import { readPolicyFile } from '../internal/records.js';

/**
 * Prints a line whose bytes have no terminator (C9): to a terminal with a newline, so that the
 * prompt starts on a line of its own; to a pipe or a file exactly its bytes. `--out` writes
 * exactly its bytes.
 */
function printLine(ctx: Context, line: string): number {
  const out = ctx.optional('out');
  if (out !== undefined) writeOutput(ctx.path(out), line, 'output file');
  else ctx.out(ctx.io.stdout.isTTY === true ? `${line}\n` : line);
  return 0;
}

function mapping(
  name: string,
  summary: string,
  section: string,
  write: (policy: Policy) => string,
): Command {
  return {
    name: [name],
    summary,
    args: ['POLICY'],
    options: {
      out: { type: 'string', arg: 'FILE', description: "write the line's bytes to FILE" },
    },
    description: `
Prints the ${section} line of the policy, exactly: its bytes have no line terminator (companion
C9), so a newline is added only when stdout is a terminal; piped or redirected, the output is the
line's bytes.`,
    run(ctx) {
      const { value: policy } = readPolicyFile(ctx.path(ctx.args[0]!));
      return printLine(ctx, write(policy));
    },
  };
}

export const hlsTagCommand = mapping(
  'hls-tag',
  'Print the HLS EXT-X-CONTENT-STEERING tag of a policy (§8.2).',
  '§8.2 #EXT-X-CONTENT-STEERING',
  hlsTag,
);

export const dashElementCommand = mapping(
  'dash-element',
  'Print the DASH <ContentSteering> element of a policy (§8.3).',
  '§8.3 <ContentSteering>',
  dashElement,
);
