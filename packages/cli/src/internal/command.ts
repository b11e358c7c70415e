import { parseArgs } from 'node:util';
import { didYouMean } from '@wai-steering/config-text';
import { UserError } from './errors.js';
import { type Io, resolvePath } from './io.js';

/** An option of a command. */
export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  /** The value's placeholder in the help (`FILE`, `HEX`). */
  readonly arg?: string;
  readonly description: string;
  readonly required?: boolean;
  readonly multiple?: boolean;
}

/** A command of `wai-steer`. */
export interface Command {
  /** The words that name it: `['room', 'create']`. */
  readonly name: readonly string[];
  /** One line for the command list. */
  readonly summary: string;
  /** Usage lines, when the generated one does not say it (a command of two forms). */
  readonly usage?: readonly string[];
  /** The positional arguments in the usage line, e.g. `CONFIG`. */
  readonly args?: readonly string[];
  /** How many positional arguments it takes (default: exactly `args.length`). */
  readonly minArgs?: number;
  readonly maxArgs?: number;
  readonly options: Readonly<Record<string, OptionSpec>>;
  /** What it does, paragraphs of the help. */
  readonly description: string;
  /** Exit status lines of the help, when other than 0 and 2. */
  readonly exitStatus?: string;
  /**
   * Options of earlier releases, refused with what to write instead: the old name (no `--`) → a
   * function of the value given (or `undefined`) that says it (`write --period 2s`).
   */
  readonly renamed?: Readonly<Record<string, (value: string | undefined) => string>>;
  run(ctx: Context): number | Promise<number>;
}

/** What a command's `run` is given. */
export class Context {
  readonly io: Io;
  readonly command: Command;
  readonly values: Readonly<Record<string, string | boolean | string[] | undefined>>;
  readonly args: readonly string[];

  constructor(
    io: Io,
    command: Command,
    values: Record<string, string | boolean | string[] | undefined>,
    args: string[],
  ) {
    this.io = io;
    this.command = command;
    this.values = values;
    this.args = args;
  }

  /** A path given on the command line, resolved. */
  path(p: string): string {
    return resolvePath(this.io, p);
  }

  /** A string option's value (a required option is always present). */
  string(name: string): string {
    const v = this.values[name];
    if (typeof v !== 'string')
      throw new UserError(`${commandName(this.command)}: missing --${name}`);
    return v;
  }

  optional(name: string): string | undefined {
    const v = this.values[name];
    return typeof v === 'string' ? v : undefined;
  }

  list(name: string): string[] {
    const v = this.values[name];
    return Array.isArray(v) ? v : typeof v === 'string' ? [v] : [];
  }

  flag(name: string): boolean {
    return this.values[name] === true;
  }

  /** Writes text to stdout. */
  out(text: string): void {
    this.io.stdout.write(text);
  }

  /** Writes a warning line to stderr. */
  warn(text: string): void {
    this.io.stderr.write(`wai-steer: warning: ${text}\n`);
  }
}

export function commandName(command: Command): string {
  return command.name.join(' ');
}

const COMMON: Readonly<Record<string, OptionSpec>> = {
  help: { type: 'boolean', description: 'print this help and exit' },
};

/** The help text of a command. */
export function helpOf(command: Command): string {
  const name = commandName(command);
  const usageOptions = Object.entries(command.options).map(([key, spec]) => {
    const word = spec.type === 'string' ? `--${key} ${spec.arg ?? 'VALUE'}` : `--${key}`;
    const repeat = spec.multiple === true ? ' …' : '';
    return spec.required === true ? `${word}${repeat}` : `[${word}]${repeat}`;
  });
  const usage = command.usage ?? [
    ['wai-steer', name, ...(command.args ?? []), ...usageOptions].join(' '),
  ];
  const lines = [
    ...usage.map((u, i) => `${i === 0 ? 'Usage:' : '      '} ${u}`),
    '',
    command.summary,
    '',
    command.description.trim(),
    '',
  ];
  const entries = Object.entries({ ...command.options, ...COMMON });
  const width = Math.max(
    ...entries.map(([key, spec]) =>
      spec.type === 'string' ? key.length + 3 + (spec.arg ?? 'VALUE').length : key.length + 2,
    ),
  );
  lines.push('Options:');
  for (const [key, spec] of entries) {
    const word = spec.type === 'string' ? `--${key} ${spec.arg ?? 'VALUE'}` : `--${key}`;
    const mark =
      spec.required === true ? ' (required)' : spec.multiple === true ? ' (repeatable)' : '';
    lines.push(`  ${word.padEnd(width)}  ${spec.description}${mark}`);
  }
  lines.push('');
  lines.push('Exit status:');
  lines.push(
    command.exitStatus?.trim() ?? '  0 done; 2 a usage, input or I/O error (one line on stderr).',
  );
  // A section cited (§6.2, companion C8) is looked up in one place.
  if (/§\d|\bC\d/.test(lines.join('\n'))) {
    lines.push('', SPEC_MAP_LINE);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Where the sections cited in a help (`§6.2`, `C8`) are said in words: the project's map of the
 * specification (docs/spec-map.md), also the console's page /console/spec-map.
 */
export const SPEC_MAP_LINE =
  "Sections: § is a section of the steering extension, C of its companion formats; docs/spec-map.md (or a server's /console/spec-map) says what each is.";

/** Parses a command's arguments; a {@link UserError} for an unknown option or a wrong count. */
export function parseCommand(io: Io, command: Command, argv: readonly string[]): Context | 'help' {
  const name = commandName(command);
  const options: Record<
    string,
    { type: 'string' | 'boolean'; multiple?: boolean; short?: string }
  > = { help: { type: 'boolean', short: 'h' } };
  for (const [key, spec] of Object.entries(command.options)) {
    options[key] =
      spec.multiple === true ? { type: spec.type, multiple: true } : { type: spec.type };
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...argv],
      options,
      allowPositionals: true,
      strict: true,
      tokens: true,
    });
  } catch (e) {
    throw new UserError(
      `${name}: ${describeParseError(e, argv, command)} (see wai-steer ${name} --help)`,
    );
  }
  const values = parsed.values as Record<string, string | boolean | string[] | undefined>;
  if (values.help === true) return 'help';
  const args = parsed.positionals;
  const min = command.minArgs ?? command.args?.length ?? 0;
  const max = command.maxArgs ?? command.args?.length ?? 0;
  if (args.length < min) {
    const missing = (command.args ?? []).slice(args.length).join(' ');
    throw new UserError(`${name}: missing ${missing} (see wai-steer ${name} --help)`);
  }
  if (args.length > max) {
    const extra = args.slice(max).join(' ');
    throw new UserError(
      max === 0
        ? `${name}: takes no argument, got ${extra} (see wai-steer ${name} --help)`
        : `${name}: too many arguments: ${extra} (see wai-steer ${name} --help)`,
    );
  }
  for (const [key, spec] of Object.entries(command.options)) {
    if (spec.required === true && values[key] === undefined) {
      throw new UserError(
        `${name}: missing --${key} ${spec.arg ?? 'VALUE'} (see wai-steer ${name} --help)`,
      );
    }
    if (spec.multiple !== true) {
      const count = (parsed.tokens ?? []).filter(
        (t) => t.kind === 'option' && t.name === key,
      ).length;
      if (count > 1) throw new UserError(`${name}: --${key} given twice`);
    }
  }
  return new Context(io, command, values, args);
}

/** The value given to option `--name` in `argv` (`--name V` or `--name=V`), if any. */
function optionValue(argv: readonly string[], name: string): string | undefined {
  const i = argv.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (i === -1) return undefined;
  const a = argv[i]!;
  if (a.includes('=')) return a.slice(a.indexOf('=') + 1);
  const next = argv[i + 1];
  return next === undefined || next.startsWith('-') ? undefined : next;
}

function describeParseError(e: unknown, argv: readonly string[], command: Command): string {
  const code = (e as { code?: unknown }).code;
  const message = e instanceof Error ? e.message : String(e);
  const quoted = /'(-[^']*)'/.exec(message)?.[1];
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION': {
      const option = quoted?.split('=')[0] ?? '';
      const bare = option.replace(/^--?/, '');
      const renamed = command.renamed?.[bare];
      if (renamed !== undefined)
        return `${option} is no longer read: ${renamed(optionValue(argv, bare))}`;
      const near = didYouMean(bare, Object.keys(command.options)).replace(/"([^"]+)"/, '"--$1"');
      return `unknown option ${option}${near}`.trim();
    }
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE': {
      if (/argument missing/.test(message)) {
        return `option ${quoted?.split(' ')[0] ?? ''} needs a value`;
      }
      if (/ambiguous/.test(message)) {
        // The next word begins with `-`: a forgotten value (or one to write as --name=-value).
        return `option ${quoted?.split(' ')[0] ?? ''} needs a value`;
      }
      if (/does not take an argument/.test(message)) {
        return `option ${quoted?.split(' ')[0]?.split('=')[0] ?? ''} takes no value`;
      }
      return message.split('\n')[0]!;
    }
    default:
      return `cannot read the arguments ${argv.join(' ')}: ${message.split('\n')[0]}`;
  }
}
