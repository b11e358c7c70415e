// Runs the shell blocks of a Markdown page as written and compares the outputs the page shows
// (the convention is in docs/cli.md, "Docs that run"):
//
// - a ```console block is a session: each `$ ` line is a command (a line ending in `\` goes on
//   to the next), the lines after it, up to the next `$ `, are its output (stdout and stderr, as
//   a terminal shows them); `…` in an output line stands for any text;
// - a ```sh block is a script that must exit 0 (its output is not compared);
// - a block just after `<!-- not run -->` is not run (a server that runs until stopped, the
//   setup of a checkout).
//
// Every command runs in one directory, in order, with `bash`, `wai-steer` on PATH, and the exit
// status of the command before it as `$?`.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A command of a console block, with the output the page shows and where it is. */
export interface DocCommand {
  readonly command: string;
  readonly expected: readonly string[];
  /** The line (0-based) of the page where its output starts, and where it ends (exclusive). */
  readonly from: number;
  readonly to: number;
  /** The line of the page where the command is. */
  readonly line: number;
}

export type DocBlock =
  | { readonly kind: 'console'; readonly commands: readonly DocCommand[]; readonly line: number }
  | { readonly kind: 'sh'; readonly script: string; readonly line: number };

const NOT_RUN = '<!-- not run -->';

/** The blocks of a page that run, in order. */
export function docBlocks(markdown: string): DocBlock[] {
  const lines = markdown.split('\n');
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i]!);
    if (open === null) continue;
    let end = i + 1;
    while (end < lines.length && !/^```\s*$/.test(lines[end]!)) end++;
    if (end === lines.length) throw new Error(`line ${i + 1}: a code block that is not closed`);
    let before = i - 1;
    while (before >= 0 && lines[before]!.trim() === '') before--;
    const skipped = before >= 0 && lines[before]!.trim() === NOT_RUN;
    const lang = open[1]!;
    if (!skipped && lang === 'console') blocks.push(consoleBlock(lines, i + 1, end));
    if (!skipped && (lang === 'sh' || lang === 'bash')) {
      blocks.push({ kind: 'sh', script: lines.slice(i + 1, end).join('\n'), line: i + 1 });
    }
    i = end;
  }
  return blocks;
}

function consoleBlock(lines: readonly string[], from: number, to: number): DocBlock {
  const commands: DocCommand[] = [];
  let i = from;
  while (i < to) {
    const line = lines[i]!;
    if (!line.startsWith('$ ')) {
      throw new Error(`line ${i + 1}: a console block's output comes after a \`$ \` command`);
    }
    const at = i;
    const parts = [line.slice(2)];
    while (parts[parts.length - 1]!.endsWith('\\') && i + 1 < to) parts.push(lines[++i]!);
    i++;
    const start = i;
    while (i < to && !lines[i]!.startsWith('$ ')) i++;
    commands.push({
      command: parts.join('\n'),
      expected: lines.slice(start, i),
      from: start,
      to: i,
      line: at,
    });
  }
  return { kind: 'console', commands, line: from };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Whether `actual` is the output `expected` shows (`…` any text; trailing blank lines aside). */
export function sameOutput(expected: readonly string[], actual: string): boolean {
  const want = expected.join('\n').trimEnd();
  const got = actual.trimEnd();
  if (!want.includes('…')) return want === got;
  const pattern = new RegExp(`^${want.split('…').map(escapeRegExp).join('[\\s\\S]*')}$`);
  return pattern.test(got);
}

/** A directory with a `wai-steer` that runs `bin` with this Node. */
export function binDir(dir: string, bin: string): string {
  mkdirSync(dir, { recursive: true });
  const shim = join(dir, 'wai-steer');
  writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" "${bin}" "$@"\n`);
  chmodSync(shim, 0o755);
  return dir;
}

/** One command's run. */
export interface DocRun {
  readonly command: DocCommand;
  readonly output: string;
  readonly status: number;
}

/** Runs one command of a page in `cwd`, `status` the exit status of the one before. */
export function runCommand(command: DocCommand, cwd: string, path: string, status: number): DocRun {
  const r = spawnSync('bash', ['-c', `exec 2>&1\n(exit ${status})\n${command.command}`], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, PATH: `${path}:${process.env.PATH ?? ''}`, NO_COLOR: '1' },
    timeout: 120_000,
  });
  return {
    command,
    output: r.stdout ?? '',
    status: r.status ?? -1,
  };
}

/** The page with each command's output replaced by `outputs` where it differs. */
export function rewrite(markdown: string, runs: readonly DocRun[]): string {
  const lines = markdown.split('\n');
  for (const run of [...runs].reverse()) {
    if (sameOutput(run.command.expected, run.output)) continue;
    const out = run.output.trimEnd();
    lines.splice(
      run.command.from,
      run.command.to - run.command.from,
      ...(out === '' ? [] : out.split('\n')),
    );
  }
  return lines.join('\n');
}
