// Docs that run: every shell block of the README and of the pages of docs/, run as written in a fresh
// directory holding a copy of examples/, with `wai-steer` the built bin; the outputs the pages
// show must be the outputs (a page that drifts fails). The convention is in docs/cli.md ("Docs
// that run"). `UPDATE_DOCS=1` writes the outputs of this run into the pages instead.
import { spawnSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { binDir, type DocRun, docBlocks, rewrite, runCommand, sameOutput } from './doc-blocks.js';
import { tempDir } from './helpers.js';
import { BIN, REPO_DIR } from './paths.js';

// The README and every page of docs/ (a page with no block to run passes as it is).
const PAGES = [
  'README.md',
  ...readdirSync(join(REPO_DIR, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];
const update = process.env.UPDATE_DOCS === '1';

describe.each(PAGES)('%s runs as written', (page) => {
  it('every block, in order, in a fresh directory', () => {
    const file = join(REPO_DIR, page);
    const markdown = readFileSync(file, 'utf8');
    const blocks = docBlocks(markdown);
    if (page === 'README.md' || page === 'docs/cli.md') expect(blocks.length).toBeGreaterThan(0);
    const dir = tempDir();
    cpSync(join(REPO_DIR, 'examples'), join(dir, 'examples'), { recursive: true });
    const path = binDir(join(tempDir(), 'bin'), BIN);
    const runs: DocRun[] = [];
    const problems: string[] = [];
    let status = 0;
    for (const block of blocks) {
      if (block.kind === 'sh') {
        const r = spawnSync('bash', ['-euc', block.script], {
          cwd: dir,
          encoding: 'utf8',
          env: { ...process.env, PATH: `${path}:${process.env.PATH ?? ''}` },
        });
        if (r.status !== 0) {
          problems.push(
            `${page}:${block.line}: the sh block exited ${r.status}: ${r.stdout}${r.stderr}`,
          );
        }
        continue;
      }
      for (const command of block.commands) {
        const run = runCommand(command, dir, path, status);
        status = run.status;
        runs.push(run);
        if (!sameOutput(command.expected, run.output)) {
          problems.push(
            `${page}:${command.line + 1}: $ ${command.command}\n--- the page shows\n${command.expected.join('\n')}\n--- the command printed (exit ${run.status})\n${run.output}`,
          );
        }
      }
    }
    if (update) writeFileSync(file, rewrite(markdown, runs));
    else expect(problems.join('\n\n')).toBe('');
  }, 600_000);
});

describe('the docs convention', () => {
  const page = [
    '<!-- not run -->',
    '```console',
    '$ serve-forever',
    '```',
    '```console',
    '$ echo a \\',
    '    b',
    'a b',
    '$ printf "x%s" 1 2',
    'x1…',
    '```',
  ].join('\n');

  it('skips a block after <!-- not run -->, joins lines ending in \\, reads the outputs', () => {
    const blocks = docBlocks(page);
    expect(blocks).toHaveLength(1);
    const [block] = blocks;
    expect(block?.kind).toBe('console');
    if (block?.kind !== 'console') return;
    expect(block.commands.map((c) => c.command)).toEqual(['echo a \\\n    b', 'printf "x%s" 1 2']);
    expect(block.commands.map((c) => c.expected)).toEqual([['a b'], ['x1…']]);
  });

  it('compares outputs exactly, `…` any text', () => {
    expect(sameOutput(['a b'], 'a b\n')).toBe(true);
    expect(sameOutput(['a b'], 'a c\n')).toBe(false);
    expect(sameOutput(['x1…'], 'x1x2')).toBe(true);
    expect(sameOutput(['x1…'], 'y1x2')).toBe(false);
  });

  it('a page that drifts is rewritten to what the commands print', () => {
    const dir = tempDir();
    const [block] = docBlocks(page.replace('a b\n', 'a c\n'));
    if (block?.kind !== 'console') throw new Error('a console block');
    const runs = block.commands.map((c) => runCommand(c, dir, dir, 0));
    expect(runs.map((r) => sameOutput(r.command.expected, r.output))).toEqual([false, true]);
    expect(rewrite(page.replace('a b\n', 'a c\n'), runs)).toBe(page);
  });
});
