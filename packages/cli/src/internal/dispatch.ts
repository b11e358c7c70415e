/**
 * The dispatch of a `wai-steer` command line over a set of commands (an edition): the whole
 * command line (`cli.ts`), or the hop agent's edition of a single executable (`edge.ts`). It runs
 * one command line and returns its exit status; it never throws. A user error is one line on
 * stderr (`wai-steer: <what is wrong>`); an internal error is one line too, with a request to
 * report it.
 */
import { closestName } from '@wai-steering/config-text';
import { useBackend } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { type Command, commandName, helpOf, parseCommand, SPEC_MAP_LINE } from './command.js';
import { EXIT, oneLine, UserError } from './errors.js';
import type { Io } from './io.js';

/** The version of `wai-steer`, as `--version` prints it. */
export const VERSION = '0.1.0';

/** The commands of a build of the command line. */
export interface Edition {
  readonly commands: readonly Command[];
  /** Lines of the help after the commands (an edition that lacks some says which, and where). */
  readonly note?: readonly string[];
  /** The line for a command this edition does not hold and nothing of it is near. */
  readonly lacks?: (word: string) => string;
}

function topHelp(e: Edition): string {
  const commands = e.commands;
  const width = Math.max(...commands.map((c) => commandName(c).length));
  const lines = [
    'Usage: wai-steer <command> [arguments] [options]',
    '',
    'Energy-aware content steering: keys, rooms, key logs, policies, per-hop records, and the',
    'decisions a steering server signs, decided and verified from files.',
    '',
    'Commands:',
    ...commands.map((c) => `  ${commandName(c).padEnd(width)}  ${c.summary}`),
    '',
    ...(e.note === undefined ? [] : [...e.note, '']),
    "Run `wai-steer <command> --help` for a command's arguments and options.",
    '',
    'Keys are RFC 8037 JWK files ({"kty":"OKP","crv":"Ed25519","x":…,"d":…}). Exit status: 0',
    'done (verify: accepted); 1 refused (verify) or a failing case (conformance); 2 a usage,',
    'input or I/O error; 3 an internal error of wai-steer.',
    '',
    SPEC_MAP_LINE,
    '',
  ];
  return lines.join('\n');
}

/** The command named by the first words of `argv`, and the words after them. */
function findCommand(
  commands: readonly Command[],
  argv: readonly string[],
): { command: Command; rest: readonly string[] } | undefined {
  for (const command of commands) {
    const n = command.name.length;
    if (argv.length >= n && command.name.every((w, i) => argv[i] === w)) {
      return { command, rest: argv.slice(n) };
    }
  }
  return undefined;
}

/** ` (did you mean "serve"?)` for a misspelt command or group, or nothing. */
function commandHint(commands: readonly Command[], word: string): string {
  const words = [...new Set(commands.map((c) => c.name[0]!))];
  const near = closestName(word, words);
  return near === undefined ? '' : ` (did you mean "${near}"?)`;
}

/** The group help (`wai-steer room`): its subcommands. */
function groupHelp(commands: readonly Command[], group: string): string | undefined {
  const members = commands.filter((c) => c.name.length > 1 && c.name[0] === group);
  if (members.length === 0) return undefined;
  const width = Math.max(...members.map((c) => commandName(c).length));
  return [
    `Usage: wai-steer ${group} <${members.map((c) => c.name[1]).join('|')}> …`,
    '',
    ...members.map((c) => `  ${commandName(c).padEnd(width)}  ${c.summary}`),
    '',
    `Run \`wai-steer ${group} <subcommand> --help\` for its arguments and options.`,
    '',
  ].join('\n');
}

/** Runs one command line of an edition; returns the exit status. Never throws. */
export async function dispatch(e: Edition, argv: readonly string[], io: Io): Promise<number> {
  try {
    return await run(e, argv, io);
  } catch (e) {
    if (e instanceof UserError) {
      io.stderr.write(`wai-steer: ${oneLine(e.message)}\n`);
      return e.exitCode;
    }
    const detail = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    io.stderr.write(
      `wai-steer: internal error: ${oneLine(detail)} (this is a bug of wai-steer ${VERSION}; please report it, with the command line that gave it)\n`,
    );
    return EXIT.internal;
  }
}

async function run(e: Edition, argv: readonly string[], io: Io): Promise<number> {
  const commands = e.commands;
  useBackend(nodeBackend);
  const first = argv[0];
  if (first === undefined) {
    // No command: the commands, as --help lists them; exit 2, since nothing was done.
    io.stdout.write(topHelp(e));
    return EXIT.usage;
  }
  if (first === '--help' || first === '-h' || first === 'help') {
    const rest = argv.slice(1);
    if (first === 'help' && rest.length > 0) {
      const found = findCommand(commands, rest);
      if (found !== undefined && found.rest.length === 0) {
        io.stdout.write(helpOf(found.command));
        return EXIT.ok;
      }
      const group = rest.length === 1 ? groupHelp(commands, rest[0]!) : undefined;
      if (group !== undefined) {
        io.stdout.write(group);
        return EXIT.ok;
      }
      throw new UserError(`help: unknown command "${rest.join(' ')}" (see wai-steer --help)`);
    }
    io.stdout.write(topHelp(e));
    return EXIT.ok;
  }
  if (first === '--version' || first === '-V') {
    io.stdout.write(`wai-steer ${VERSION}\n`);
    return EXIT.ok;
  }
  const found = findCommand(commands, argv);
  if (found === undefined) {
    const group = groupHelp(commands, first);
    if (group !== undefined) {
      const sub = argv[1];
      if (sub === '--help' || sub === '-h') {
        io.stdout.write(group);
        return EXIT.ok;
      }
      const names = commands.filter((c) => c.name[0] === first).map((c) => c.name[1]!);
      const near = sub === undefined ? undefined : closestName(sub, names);
      throw new UserError(
        sub === undefined
          ? `${first}: missing subcommand (${names.join(', ')}; see wai-steer ${first} --help)`
          : near !== undefined
            ? `${first}: unknown subcommand "${sub}" (did you mean "${first} ${near}"?; see wai-steer ${first} --help)`
            : `${first}: unknown subcommand "${sub}" (${names.join(', ')}; see wai-steer ${first} --help)`,
      );
    }
    const hint = commandHint(commands, first);
    const lacking = hint === '' ? e.lacks?.(first) : undefined;
    if (lacking !== undefined) throw new UserError(lacking);
    throw new UserError(`unknown command "${first}"${hint} (see wai-steer --help)`);
  }
  const ctx = parseCommand(io, found.command, found.rest);
  if (ctx === 'help') {
    io.stdout.write(helpOf(found.command));
    return EXIT.ok;
  }
  return await found.command.run(ctx);
}
