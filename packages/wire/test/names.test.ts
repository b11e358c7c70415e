import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DECISION_REASON,
  nobleBackend,
  REASON_NAME,
  STATUS,
  STATUS_NAME,
  sha256,
} from '../src/index.js';
import { nodeBackend } from '../src/node.js';

describe('the names of the codes', () => {
  it('REASON_NAME names §6.4 reasons 1 to 6 in the order of its steps', () => {
    const names = ['buffer', 'floor', 'share', 'hold', 'rank', 'none'];
    for (const [i, name] of names.entries()) expect(REASON_NAME[i + 1]).toBe(name);
    expect(REASON_NAME[0]).toBeUndefined();
    expect(REASON_NAME[7]).toBeUndefined();
    for (const [name, code] of Object.entries(DECISION_REASON))
      expect(REASON_NAME[code]).toBe(name);
    expect(Object.isFrozen(REASON_NAME)).toBe(true);
  });

  it('STATUS_NAME names §5.3 statuses 0 to 4', () => {
    const names = ['figure', 'unmetered', 'mixed', 'stale', 'empty'];
    for (const [i, name] of names.entries()) expect(STATUS_NAME[i]).toBe(name);
    expect(STATUS_NAME[5]).toBeUndefined();
    for (const [name, code] of Object.entries(STATUS)) expect(STATUS_NAME[code]).toBe(name);
  });
});

describe('sha256', () => {
  it("is Node's SHA-256 on either backend, and on the installed one by default", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const expected = createHash('sha256').update(bytes).digest('hex');
        expect(Buffer.from(sha256(bytes)).toString('hex')).toBe(expected);
        expect(Buffer.from(sha256(bytes, nobleBackend)).toString('hex')).toBe(expected);
        expect(Buffer.from(sha256(bytes, nodeBackend)).toString('hex')).toBe(expected);
      }),
      { numRuns: 100 },
    );
  });
});
