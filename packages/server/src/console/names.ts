/** Names the console writes: §6.4 reasons, §5.3 statuses (wire's tables), §3.2 places, by code. */
import { DECISION_REASON, REASON_NAME, STATUS, STATUS_NAME } from '@wai-steering/wire';

/** §6.4 reason names by code (1 to 6; index 0 unused). */
export const REASONS_BY_CODE: readonly string[] = [
  '',
  ...Object.values(DECISION_REASON)
    .sort((a, b) => a - b)
    .map((code) => REASON_NAME[code]!),
];

/** §5.3 status names by code (0 to 4). */
export const STATUS_BY_CODE: readonly string[] = Object.values(STATUS)
  .sort((a, b) => a - b)
  .map((code) => STATUS_NAME[code]!);

/** §3.2 hop places by code. */
export const PLACE_NAME: Readonly<Record<number, string>> = { 1: 'edge', 2: 'interior' };
