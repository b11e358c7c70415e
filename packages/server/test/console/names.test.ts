// The names the console writes, from wire's tables.
import { DECISION_REASON, STATUS } from '@wai-steering/wire';
import { describe, expect, it } from 'vitest';
import { PLACE_NAME, REASONS_BY_CODE, STATUS_BY_CODE } from '../../src/console/names.js';

describe('console names', () => {
  it('names §6.4 reasons and §5.3 statuses by code, and §3.2 places', () => {
    expect(REASONS_BY_CODE).toEqual(['', 'buffer', 'floor', 'share', 'hold', 'rank', 'none']);
    expect(REASONS_BY_CODE[DECISION_REASON.rank]).toBe('rank');
    expect(STATUS_BY_CODE).toEqual(['figure', 'unmetered', 'mixed', 'stale', 'empty']);
    expect(STATUS_BY_CODE[STATUS.stale]).toBe('stale');
    expect(PLACE_NAME).toEqual({ 1: 'edge', 2: 'interior' });
  });
});
