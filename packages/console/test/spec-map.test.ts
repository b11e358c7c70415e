// The console's page of the specification's sections reads docs/spec-map.md as written: every
// section cited by the console has its row, and the Markdown's few forms read into blocks.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseInline, parseSpecMap, sectionAnchor, slug } from '../src/spec-map/parse.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const MAP = readFileSync(join(ROOT, 'docs', 'spec-map.md'), 'utf8');

describe('the map of the sections', () => {
  it('reads the inline forms: code, links (public ones kept), anchors', () => {
    expect(
      parseInline('a `b` [RFC](https://x.example/r) [page](cli.md) <a id="s6-2"></a>§6.2'),
    ).toEqual([
      { kind: 'text', text: 'a ' },
      { kind: 'code', text: 'b' },
      { kind: 'text', text: ' ' },
      { kind: 'link', text: 'RFC', href: 'https://x.example/r' },
      { kind: 'text', text: ' ' },
      { kind: 'text', text: 'page' },
      { kind: 'text', text: ' ' },
      { kind: 'anchor', id: 's6-2' },
      { kind: 'text', text: '§6.2' },
    ]);
    // Markup that is not one of these forms stays text.
    expect(parseInline('<script>x</script>')).toEqual([
      { kind: 'text', text: '<script>x</script>' },
    ]);
    expect(slug('Public texts')).toBe('public-texts');
    expect(sectionAnchor('§6.2')).toBe('s6-2');
    expect(sectionAnchor('§5')).toBe('s5');
    expect(sectionAnchor('C5.4')).toBe('c5-4');
    expect(() => sectionAnchor('6.2')).toThrow(TypeError);
  });

  it('has a row with an anchor for every section the console cites', () => {
    const blocks = parseSpecMap(MAP);
    const anchors = new Set(
      blocks.flatMap((b) =>
        b.kind === 'table'
          ? b.rows.flatMap((r) =>
              r.flatMap((c) => c.flatMap((x) => (x.kind === 'anchor' ? [x.id] : []))),
            )
          : [],
      ),
    );
    const cited = new Set<string>();
    for (const file of [
      'src/console/render.ts',
      'src/verify/main.ts',
      'index.html',
      'verify.html',
      'players.html',
    ]) {
      const text = readFileSync(join(import.meta.dirname, '..', file), 'utf8');
      for (const m of text.matchAll(/specLink\('([^']+)'\)|spec-map#([a-z0-9-]+)/g)) {
        cited.add(m[1] === undefined ? m[2]! : sectionAnchor(m[1]));
      }
    }
    expect(cited.size).toBeGreaterThan(4);
    for (const a of cited) expect(anchors, a).toContain(a);
    // Every table row's first cell is a section with its anchor, or a public text with its link.
    for (const b of blocks) {
      if (b.kind !== 'table') continue;
      for (const r of b.rows) {
        const first = r[0]!;
        expect(
          first.some((x) => x.kind === 'anchor' || x.kind === 'link'),
          JSON.stringify(first),
        ).toBe(true);
      }
    }
  });
});
