// docs/cli.md, the README's section on the CLI, names every command and every reason.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REASONS } from '@wai-steering/wire';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../src/commands/index.js';
import { REASON_SENTENCE } from '../src/internal/explain.js';
import { REPO_DIR } from './paths.js';

const doc = readFileSync(join(REPO_DIR, 'docs', 'cli.md'), 'utf8');

describe('docs/cli.md', () => {
  it('names every command', () => {
    for (const c of COMMANDS) expect(doc, c.name.join(' ')).toContain(`\`${c.name.join(' ')} `);
  });

  it('explains every reason of companion C7, as verify does', () => {
    expect(Object.keys(REASON_SENTENCE)).toEqual([...REASONS]);
    // A table row, however the formatter pads its cells.
    const rows = new Map(
      doc
        .split('\n')
        .map((line) => /^\| `([a-z_]+)` +\| (.*?) +\|$/.exec(line))
        .filter((m) => m !== null)
        .map((m) => [m[1]!, m[2]!]),
    );
    for (const reason of REASONS) expect(rows.get(reason), reason).toBe(REASON_SENTENCE[reason]);
  });
});
