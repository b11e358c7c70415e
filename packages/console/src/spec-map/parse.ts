/**
 * The project's map of the specification (docs/spec-map.md) as the console's page shows it: the
 * few forms of Markdown that file is written in (headings, paragraphs, tables; inline code,
 * links and `<a id>` anchors) read into blocks, which the page builds as DOM nodes (never parsed
 * as HTML). Links to the project's other pages become their names: the console does not serve
 * them.
 */

/** A run of a line. */
export type Inline =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'code'; readonly text: string }
  | { readonly kind: 'link'; readonly text: string; readonly href: string }
  | { readonly kind: 'anchor'; readonly id: string };

/** A block of the page. */
export type Block =
  | { readonly kind: 'heading'; readonly level: number; readonly id: string; readonly text: string }
  | { readonly kind: 'paragraph'; readonly inlines: readonly Inline[] }
  | {
      readonly kind: 'table';
      readonly head: readonly (readonly Inline[])[];
      readonly rows: readonly (readonly (readonly Inline[])[])[];
    };

/** A heading's id, as the Markdown renderers write it: lowercase, words joined by `-`. */
export function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .trim()
    .replace(/ /g, '-');
}

const INLINE = /`([^`]+)`|\[([^\]]+)\]\(([^)\s]+)\)|<a id="([A-Za-z0-9-]+)"><\/a>/g;

/** The runs of a line of text. */
export function parseInline(line: string): Inline[] {
  const out: Inline[] = [];
  let at = 0;
  for (const m of line.matchAll(INLINE)) {
    if (m.index > at) out.push({ kind: 'text', text: line.slice(at, m.index) });
    if (m[1] !== undefined) out.push({ kind: 'code', text: m[1] });
    else if (m[2] !== undefined) {
      const href = m[3]!;
      // A public text is linked; an anchor of this page stays a link; another page of the
      // project is named (it is not served beside the console).
      if (/^https:\/\//.test(href) || href.startsWith('#')) {
        out.push({ kind: 'link', text: m[2], href });
      } else out.push({ kind: 'text', text: m[2] });
    } else out.push({ kind: 'anchor', id: m[4]! });
    at = m.index + m[0].length;
  }
  if (at < line.length) out.push({ kind: 'text', text: line.slice(at) });
  return out;
}

function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((c) => c.trim());
}

/** The blocks of the map's Markdown. */
export function parseSpecMap(markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split('\n');
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    const heading = /^(#{1,3}) (.*)$/.exec(line);
    if (heading !== null) {
      const text = heading[2]!;
      blocks.push({ kind: 'heading', level: heading[1]!.length, id: slug(text), text });
      i++;
    } else if (line.startsWith('|')) {
      const rows: string[][] = [];
      while (i < lines.length && lines[i]!.startsWith('|')) rows.push(cells(lines[i++]!));
      const [head = [], , ...body] = rows;
      blocks.push({
        kind: 'table',
        head: head.map(parseInline),
        rows: body.map((r) => r.map(parseInline)),
      });
    } else if (line.trim() === '') {
      i++;
    } else {
      const para: string[] = [];
      while (i < lines.length && lines[i]!.trim() !== '' && !/^(#|\|)/.test(lines[i]!)) {
        para.push(lines[i++]!);
      }
      blocks.push({ kind: 'paragraph', inlines: parseInline(para.join(' ')) });
    }
  }
  return blocks;
}

/** The anchor of a section on the map's page: `§6.2` → `s6-2`, `C5.4` → `c5-4`. */
export function sectionAnchor(section: string): string {
  const m = /^(§|C)(\d+(?:\.\d+)?)$/.exec(section);
  if (m === null) throw new TypeError(`sectionAnchor: not a section: ${section}`);
  return `${m[1] === '§' ? 's' : 'c'}${m[2]!.replace('.', '-')}`;
}
