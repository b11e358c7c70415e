/** Names the console writes: §6.4 reasons, §5.3 statuses, §3.2 places, by their codes. */

/** §6.4 reason names by code (index 0 unused). */
export const REASONS_BY_CODE = ['', 'buffer', 'floor', 'share', 'hold', 'rank', 'none'] as const;

/** §5.3 status names by code. */
export const STATUS_BY_CODE = ['figure', 'unmetered', 'mixed', 'stale', 'empty'] as const;

/** §3.2 hop places by code. */
export const PLACE_NAME: Readonly<Record<number, string>> = { 1: 'edge', 2: 'interior' };
