import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { notAMapping, parseProblem } from '../src/index.js';

function yamlError(source: string): unknown {
  try {
    parse(source);
  } catch (e) {
    return e;
  }
  throw new Error(`parses: ${source}`);
}

describe('parseProblem', () => {
  it('ends with the line the parser means, never a dangling colon', () => {
    const source = 'room: room.wrd\nkey_log: a: b\n';
    expect(parseProblem(yamlError(source), source)).toBe(
      'Nested mappings are not allowed in compact mappings at line 2, column 10: "key_log: a: b"',
    );
  });

  it('says when the line pointed at is the end of the file', () => {
    const source = 'room: [a\n';
    expect(parseProblem(yamlError(source), source)).toBe(
      'Flow sequence in block collection must be sufficiently indented and end with a ] at line 2, column 1 (at the end of the file, or an empty line: look at the line before)',
    );
  });

  it('is the first line of an error without a position, its colon dropped', () => {
    expect(parseProblem(new Error('Unexpected token } in JSON at position 9'), '{}')).toBe(
      'Unexpected token } in JSON at position 9',
    );
    expect(parseProblem(new Error('bad thing:\n\nexcerpt\n'), '')).toBe('bad thing');
  });

  it('shortens a long line', () => {
    const source = `a: 1\nb: ${'x'.repeat(100)}: c\n`;
    expect(parseProblem(yamlError(source), source)).toBe(
      `Nested mappings are not allowed in compact mappings at line 2, column 4: "b: ${'x'.repeat(74)}..."`,
    );
  });
});

describe('notAMapping', () => {
  it('accepts a mapping, and names a list, a value and nothing', () => {
    expect(notAMapping({ room: 'r' })).toBeUndefined();
    expect(notAMapping(parse('- room: r\n'))).toBe(
      'the file\'s top level must be a mapping of fields (name: value, one a line), but it is a list (a line starting with "- "): write the fields at the top level, without "- "',
    );
    expect(notAMapping('room.wrd')).toMatch(/but it is a single value \("room\.wrd"\)$/);
    expect(notAMapping(null)).toMatch(
      /but it is nothing \(the file is empty, or holds only comments\)$/,
    );
    expect(notAMapping(undefined)).toMatch(/nothing/);
  });
});
