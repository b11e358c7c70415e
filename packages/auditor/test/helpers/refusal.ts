import { expect } from 'vitest';
import { ArchiveError } from '../../src/archive.js';

/** The message of what `f` throws, checked to be an {@link ArchiveError}. */
export function refusal(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ArchiveError);
    return (e as Error).message;
  }
  throw new Error('expected an ArchiveError, but nothing was thrown');
}
