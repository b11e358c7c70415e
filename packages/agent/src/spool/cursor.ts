/**
 * The spool's `cursor.json`: the end of the last span cut, and the energy counter's reading at
 * that boundary, so that a restart resumes with the next span (never two records for one span,
 * never a gap) and, restarted within the period after it, states that period from the reading.
 * Its form: `{"end":"<µs>","reading":{"values":{…},"ranges":{…}}}`, every number a decimal
 * string.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { readStrictJson } from '@wai-steering/config-text';
import type { CounterReading } from '../energy/source.js';
import { codeOf, writeDurably } from './directories.js';

/** The cursor: where the last span cut ended, and the energy reading taken at that boundary. */
export interface Cursor {
  readonly end: bigint;
  readonly reading?: CounterReading;
}

/** The file name of the cursor, in the spool directory. */
export const CURSOR_FILE = 'cursor.json';

/**
 * The cursor `cursor.json` of a spool directory holds; `undefined` when there is none, or why it
 * does not read (a line naming the file).
 */
export function readCursor(dir: string): Cursor | string | undefined {
  let text: string;
  try {
    text = readFileSync(join(dir, CURSOR_FILE), 'utf8');
  } catch (e) {
    return codeOf(e) === 'ENOENT' ? undefined : `cursor.json cannot be read (${codeOf(e)})`;
  }
  const read = readStrictJson(text);
  if (!read.ok) {
    return read.problem.startsWith('not JSON')
      ? 'cursor.json is not JSON'
      : `cursor.json does not read: ${read.problem}`;
  }
  const j = read.value;
  const isDecimal = (v: unknown) => typeof v === 'string' && /^\d{1,40}$/.test(v);
  const isValues = (v: unknown) =>
    v !== null &&
    typeof v === 'object' &&
    !Array.isArray(v) &&
    Object.values(v as Record<string, unknown>).every(isDecimal);
  const c = j as { end?: unknown; reading?: { values?: unknown; ranges?: unknown } };
  if (c === null || typeof c !== 'object' || !isDecimal(c.end)) {
    return 'cursor.json states no end (µs, a decimal string)';
  }
  if (c.reading !== undefined) {
    if (
      !isValues(c.reading?.values) ||
      (c.reading.ranges !== undefined && !isValues(c.reading.ranges))
    ) {
      return "cursor.json's reading is not whole microjoules by series";
    }
  }
  const reading = c.reading as CounterReading | undefined;
  return { end: BigInt(c.end as string), ...(reading === undefined ? {} : { reading }) };
}

/**
 * Writes the cursor durably; whether it could be (a cursor that could not be written follows from
 * the newest record at a restart).
 */
export function writeCursor(
  dir: string,
  end: bigint,
  reading: CounterReading | undefined,
): boolean {
  const cursor = { end: String(end), ...(reading === undefined ? {} : { reading }) };
  try {
    writeDurably(dir, CURSOR_FILE, `${JSON.stringify(cursor)}\n`);
    return true;
  } catch {
    rmSync(join(dir, `.${CURSOR_FILE}.tmp`), { force: true });
    return false;
  }
}
