/**
 * The Prometheus text exposition format (version 0.0.4), read line by line: `# HELP`, `# TYPE`
 * and comments skipped, each sample `name{label="value",…} value [timestamp]` with the label
 * values' escapes (`\\`, `\"`, `\n`). Written here rather than taken from a library because the
 * agent needs each value as the exact decimal text it is (a parser that returns a JavaScript
 * number has already rounded it); the grammar is small.
 */

/** One sample: its metric name, labels and value as written. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: string;
  /** Its family's type, as a `# TYPE` line states it (`counter`, `gauge`…), when one does. */
  readonly type?: string;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*/;
const VALUE = /^[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|Inf|NaN)$/i;

function parseLine(line: string): Sample | undefined {
  const m = NAME.exec(line);
  if (m === null) return undefined;
  const name = m[0];
  let i = name.length;
  const labels: Record<string, string> = {};
  if (line[i] === '{') {
    i++;
    for (;;) {
      while (line[i] === ' ' || line[i] === ',') i++;
      if (line[i] === '}') {
        i++;
        break;
      }
      const l = LABEL.exec(line.slice(i));
      if (l === null) return undefined;
      i += l[0].length;
      while (line[i] === ' ') i++;
      if (line[i] !== '=') return undefined;
      i++;
      while (line[i] === ' ') i++;
      if (line[i] !== '"') return undefined;
      i++;
      let value = '';
      for (;;) {
        const c = line[i];
        if (c === undefined) return undefined;
        if (c === '"') {
          i++;
          break;
        }
        if (c === '\\') {
          const n = line[i + 1];
          value += n === 'n' ? '\n' : (n ?? '');
          i += 2;
          continue;
        }
        value += c;
        i++;
      }
      labels[l[0]] = value;
    }
  }
  const tail = line.slice(i);
  if (!/^\s/.test(tail)) return undefined;
  // The value, then an optional timestamp: nothing else.
  const rest = tail.trim().split(/\s+/);
  if (rest.length > 2 || !VALUE.test(rest[0]!)) return undefined;
  if (rest.length === 2 && !/^-?\d+$/.test(rest[1]!)) return undefined;
  return { name, labels, value: rest[0]! };
}

const TYPE_LINE = /^#\s*TYPE\s+([a-zA-Z_:][a-zA-Z0-9_:]*)\s+([a-z]+)\s*$/;

/**
 * The samples of an exposition, each with its family's `# TYPE` (a counter's family is named
 * as its samples in the text format 0.0.4, and without `_total` in OpenMetrics); lines that do
 * not read are skipped.
 */
export function parseExposition(text: string): Sample[] {
  const out: Sample[] = [];
  const types = new Map<string, string>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    if (line.startsWith('#')) {
      const t = TYPE_LINE.exec(line);
      if (t !== null) types.set(t[1]!, t[2]!);
      continue;
    }
    const s = parseLine(line);
    if (s === undefined) continue;
    const type =
      types.get(s.name) ?? (s.name.endsWith('_total') ? types.get(s.name.slice(0, -6)) : undefined);
    out.push(type === undefined ? s : { ...s, type });
  }
  return out;
}

/** The key of a sample's series: its name and its labels in order. */
export function seriesKey(s: Sample): string {
  const labels = Object.keys(s.labels)
    .sort()
    .map((k) => `${k}=${JSON.stringify(s.labels[k])}`)
    .join(',');
  return `${s.name}{${labels}}`;
}
