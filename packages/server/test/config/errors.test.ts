import { describe, expect, it } from 'vitest';
import { fsProblem } from '../../src/config/errors.js';

describe('configuration', () => {
  it('says what a file-system error means and how to fix it', () => {
    // A permission cannot be refused to root (the tests may run as root): the codes, as Node gives them.
    expect(fsProblem({ code: 'EACCES' })).toBe(
      'permission denied (EACCES): make it readable by the user the server runs as',
    );
    expect(fsProblem({ code: 'ENOENT' })).toMatch(/relative to its directory/);
    expect(fsProblem({ code: 'ENOENT' }, false)).toBe('no such file or directory (ENOENT)');
    expect(fsProblem({ code: 'EISDIR' })).toBe('is a directory (EISDIR): name a file');
  });
});
