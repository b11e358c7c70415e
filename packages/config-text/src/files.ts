// What is wrong with a hand-written file before its fields are read (the server's config, the
// policy YAML, the hop agent's hop.yaml): a parser's error as one line that shows the line it
// means, and a file whose top level is not a mapping of fields.

/** Where a parser says the error is: 1-based line and column (the `yaml` package's `linePos`). */
interface LinePos {
  readonly line: number;
  readonly col: number;
}

function linePosOf(e: unknown): LinePos | undefined {
  const pos = (e as { linePos?: unknown } | null)?.linePos;
  const first = Array.isArray(pos) ? pos[0] : undefined;
  if (first === null || typeof first !== 'object') return undefined;
  const { line, col } = first as { line?: unknown; col?: unknown };
  return typeof line === 'number' && typeof col === 'number' ? { line, col } : undefined;
}

/**
 * A parser's error as one line: its first line without the dangling `:` that introduces the
 * excerpt a terminal would show under it, and instead the line it points at, quoted (or `at the
 * end of the file`): `Nested mappings are not allowed in compact mappings at line 1, column 7:
 * "room: a: b"`. `source` is the text that was parsed.
 */
export function parseProblem(e: unknown, source: string): string {
  const message = e instanceof Error ? e.message : String(e);
  const first = (message.split('\n')[0] ?? '').trim().replace(/:$/, '');
  const pos = linePosOf(e);
  if (pos === undefined) return first;
  const line = source.split(/\r?\n/)[pos.line - 1];
  if (line === undefined || line.trim() === '') {
    return `${first} (at the end of the file, or an empty line: look at the line before)`;
  }
  const shown = line.length > 80 ? `${line.slice(0, 77)}...` : line;
  return `${first}: ${JSON.stringify(shown)}`;
}

/**
 * Why a file's top level is not a mapping of fields (`room: …`, `policy: …`), or `undefined`
 * when it is: a list (`- room: …`), a bare value, or nothing at all.
 */
export function notAMapping(input: unknown): string | undefined {
  if (input !== null && typeof input === 'object' && !Array.isArray(input)) return undefined;
  const got =
    input === undefined || input === null
      ? 'nothing (the file is empty, or holds only comments)'
      : Array.isArray(input)
        ? 'a list (a line starting with "- "): write the fields at the top level, without "- "'
        : `a single value (${JSON.stringify(input)})`;
  return `the file's top level must be a mapping of fields (name: value, one a line), but it is ${got}`;
}
