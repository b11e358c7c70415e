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

describe("docs/metering.md's grants", () => {
  const page = readFileSync(join(REPO_DIR, 'docs', 'metering.md'), 'utf8');
  const section = page.slice(
    page.indexOf('## What the key log must grant'),
    page.indexOf('\n## ', page.indexOf('## What the key log must grant') + 1),
  );
  const rows = section
    .split('\n')
    .filter((l) => l.startsWith('| '))
    .map((l) => l.split(' | ').map((c) => c.replace(/^\| |\s*\|$/g, '').trim()));

  it("cover the hops' keys and the steering key's", () => {
    // Each energy source's class, and what the hop's entry must hold.
    const hops = rows.filter((r) => /^`(rapl|prometheus|model|none)`/.test(r[0]!));
    expect(hops.map((r) => r[0]!.split(/[`,]/)[1])).toEqual(
      expect.arrayContaining(['rapl', 'prometheus', 'model', 'none']),
    );
    for (const r of hops) expect(r[2], r[0]).toMatch(/^`live\/hop`/);
    // The steering key: live/steer, and energy/<class> for every class a hop is granted.
    const steer = rows.find((r) => r[0]!.startsWith('the steering key'));
    expect(steer, 'a row for the steering key').toBeDefined();
    expect(steer![0]).toContain('`signing_key`');
    expect(steer![2]).toMatch(
      /`live\/steer`, and `energy\/<class>` for each class any hop's entry grants/,
    );
    // The warning the page quotes is the server's, as serve prints it.
    expect(section).toContain(
      '`the steering key lacks\nenergy/ModelBased: a decision stating a ModelBased figure would be refused',
    );
  });
});
