// docs/energy.md runs as written: its `js` blocks, in order and sharing one scope, with the
// imports they name from this package, `@wai-steering/wire` and `@wai-steering/tlog`; what they
// print must be the `text` block that follows each (the convention of docs/cli.md, "Docs that
// run", for a page of a package's API). UPDATE_DOCS=1 writes what they print into the page.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as tlog from '@wai-steering/tlog';
import * as wire from '@wai-steering/wire';
import { describe, expect, it } from 'vitest';
import * as energy from '../src/index.js';

const PAGE = join(import.meta.dirname, '..', '..', '..', 'docs', 'energy.md');
const MODULES: Record<string, Record<string, unknown>> = {
  '@wai-steering/energy': energy,
  '@wai-steering/wire': wire,
  '@wai-steering/tlog': tlog,
};

interface Block {
  readonly code: string;
  /** The lines of the `text` block after it: its expected output, and where they are. */
  readonly expected: { from: number; to: number } | undefined;
}

function blocks(markdown: string): Block[] {
  const lines = markdown.split('\n');
  const out: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== '```js') continue;
    let end = i + 1;
    while (lines[end] !== '```') end++;
    const code = lines.slice(i + 1, end).join('\n');
    let next = end + 1;
    while (next < lines.length && lines[next]!.trim() === '') next++;
    let expected: Block['expected'];
    if (lines[next] === '```text') {
      let close = next + 1;
      while (lines[close] !== '```') close++;
      expected = { from: next + 1, to: close };
    }
    out.push({ code, expected });
    i = end;
  }
  return out;
}

/** The block with its imports made bindings of the modules given. */
function bindImports(code: string): string {
  return code.replace(
    /^import \{([^}]*)\} from '([^']+)';$/gm,
    (_, names: string, from: string) => {
      if (!(from in MODULES)) throw new Error(`docs/energy.md imports ${from}`);
      return `const {${names}} = modules[${JSON.stringify(from)}];`;
    },
  );
}

describe('docs/energy.md', () => {
  it('runs its worked example as written and prints what the page shows', async () => {
    const markdown = readFileSync(PAGE, 'utf8');
    const found = blocks(markdown);
    expect(found.length).toBeGreaterThan(0);
    const printed: string[][] = found.map(() => []);
    let current = 0;
    const log = (...xs: unknown[]) => printed[current]!.push(xs.map(String).join(' '));
    // One scope for every block: each block's body runs in turn inside one async function.
    const body = found.map((b, i) => `__block(${i});\n${bindImports(b.code)}`).join('\n');
    const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor;
    const run = new AsyncFunction('modules', 'console', '__block', body);
    await run(MODULES, { log }, (i: number) => {
      current = i;
    });
    const lines = markdown.split('\n');
    const problems: string[] = [];
    for (const [i, b] of found.entries()) {
      if (b.expected === undefined) continue;
      const want = lines.slice(b.expected.from, b.expected.to).join('\n');
      const got = printed[i]!.join('\n');
      if (want !== got)
        problems.push(`block ${i + 1}:\n--- the page shows\n${want}\n--- printed\n${got}`);
    }
    if (process.env.UPDATE_DOCS === '1') {
      for (const [i, b] of [...found.entries()].reverse()) {
        if (b.expected === undefined) continue;
        lines.splice(b.expected.from, b.expected.to - b.expected.from, ...printed[i]!);
      }
      writeFileSync(PAGE, lines.join('\n'));
    } else {
      expect(problems.join('\n\n')).toBe('');
    }
  });
});
