/** Names the console writes: §6.4 reasons, §5.3 statuses (the verifier's), §3.2 places, by code. */
import { REASON_NAMES, STATUS_NAMES } from '@wai-steering/verifier';

/** §6.4 reason names by code (1 to 6; index 0 unused). */
export const REASONS_BY_CODE: readonly string[] = ['', ...REASON_NAMES];

/** §5.3 status names by code (0 to 4). */
export const STATUS_BY_CODE: readonly string[] = STATUS_NAMES;

/** §3.2 hop places by code. */
export const PLACE_NAME: Readonly<Record<number, string>> = { 1: 'edge', 2: 'interior' };
