// docs/spec-map.md says what every section the project cites is: each § of the extension and
// each C of its companion cited by the README, the pages of docs/, the packages' sources, READMEs
// and pages has a row there; and every --help that cites one says where
// they are looked up.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../src/commands/index.js';
import { helpOf, SPEC_MAP_LINE } from '../src/internal/command.js';
import { REPO_DIR } from './paths.js';

/** The files under `dir` whose name ends in one of `ext`, skipping builds and dependencies. */
function files(dir: string, ext: readonly string[]): string[] {
  return readdirSync(dir).flatMap((f) => {
    if (f.startsWith('.') || ['node_modules', 'dist', 'test-output'].includes(f)) return [];
    const path = join(dir, f);
    if (statSync(path).isDirectory()) return files(path, ext);
    return ext.some((e) => f.endsWith(e)) ? [path] : [];
  });
}

/**
 * The sections a text cites, as anchors of the map (`§6.2` → `s6-2`, `C5.4` → `c5-4`); the
 * sections of other texts (`RFC 6962 §2.1`, `rfc8216bis-22 §7.4`, `content-steering-04 §11.1`,
 * and the lists that follow them: `RFC 7493 §2.3 and §2.1`) are not the project's to map.
 */
export function citedSections(text: string): Set<string> {
  const own = text.replace(
    /(RFC ?\d+|rfc\d+[\w-]*|content-steering-\d+|draft-[\w-]+|energy-measurement)((,| and| or|,? then)? ?§\d+(\.\d+)*)+/g,
    '',
  );
  const cited = new Set<string>();
  for (const m of own.matchAll(/§(\d+)(?:\.(\d+))?/g)) {
    cited.add(m[2] === undefined ? `s${m[1]}` : `s${m[1]}-${m[2]}`);
  }
  for (const m of own.matchAll(/(?<![\w.#-])C(\d+)(?:\.(\d+))?\b/g)) {
    cited.add(m[2] === undefined ? `c${m[1]}` : `c${m[1]}-${m[2]}`);
  }
  return cited;
}

describe('docs/spec-map.md', () => {
  const map = readFileSync(join(REPO_DIR, 'docs', 'spec-map.md'), 'utf8');
  const anchors = new Set([...map.matchAll(/<a id="([sc][\d-]+)"><\/a>/g)].map((m) => m[1]!));

  it('reads the citations as the project writes them, and not those of other texts', () => {
    expect([
      ...citedSections(
        'the window (§5.1), §6, companion C5.4 and C8; RFC 6962 §2.1.1, §2.1.2; RFC 7493 §2.3 and §2.1; rfc8216bis-22 §7.4; C2SP',
      ),
    ]).toEqual(['s5-1', 's6', 'c5-4', 'c8']);
  });

  it('has a row for every section the project cites', () => {
    const sources = [
      join(REPO_DIR, 'README.md'),
      ...files(join(REPO_DIR, 'docs'), ['.md']).filter((f) => !f.endsWith('spec-map.md')),
      ...readdirSync(join(REPO_DIR, 'packages')).flatMap((p) => {
        const dir = join(REPO_DIR, 'packages', p);
        return [
          ...files(join(dir, 'src'), ['.ts']),
          ...files(dir, ['.md', '.html']).filter((f) => !f.includes(`${dir}/test`)),
        ];
      }),
    ];
    const missing = new Map<string, string>();
    let cited = 0;
    for (const f of sources) {
      for (const s of citedSections(readFileSync(f, 'utf8'))) {
        cited++;
        if (!anchors.has(s)) missing.set(s, f.slice(REPO_DIR.length + 1));
      }
    }
    expect(cited).toBeGreaterThan(100);
    expect(Object.fromEntries(missing)).toEqual({});
  });

  it('is where every --help that cites a section sends its reader', () => {
    let citing = 0;
    for (const c of COMMANDS) {
      const help = helpOf(c);
      if (citedSections(help).size === 0) continue;
      citing++;
      expect(help.trimEnd().endsWith(SPEC_MAP_LINE), c.name.join(' ')).toBe(true);
      for (const s of citedSections(help))
        expect(anchors, `${c.name.join(' ')}: ${s}`).toContain(s);
    }
    expect(citing).toBeGreaterThan(5);
    expect(SPEC_MAP_LINE).toContain('docs/spec-map.md');
    expect(SPEC_MAP_LINE).toContain('/console/spec-map');
  });
});
