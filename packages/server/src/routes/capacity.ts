/**
 * `POST /capacity`: a site's capacity report (`live/report.ts`, `docs/live-policy.md`), a compact
 * JWS in the body.
 */
import { readBody } from '../guard/body.js';
import { MAX_REPORT_BYTES } from '../live/report.js';
import {
  capacityOff,
  capacityRefused,
  capacityTaken,
  incompleteBody,
  overloaded,
  storeUnavailable,
  tooLarge,
} from './responses.js';
import type { AppResponse, RouteContext } from './types.js';

export async function capacity(ctx: RouteContext): Promise<AppResponse> {
  const closing = ctx.engine.admit();
  if (closing !== undefined) return overloaded(closing.why);
  const body = await readBody(ctx.request, MAX_REPORT_BYTES);
  if (body === 'too_large') return tooLarge(MAX_REPORT_BYTES, 'a report');
  if (body === 'incomplete') return incompleteBody();
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    return capacityRefused('malformed_report', 'a report is ASCII: one compact JWS');
  }
  const result = await ctx.engine.offerCapacity(text);
  switch (result.kind) {
    case 'report':
      return capacityTaken(result.taken, result.report, result.rotated?.digest);
    case 'report_refused':
      return capacityRefused(result.reason, result.message);
    case 'capacity_off':
      return capacityOff();
    case 'overloaded':
      return overloaded(result.why);
    case 'store_unavailable':
      return storeUnavailable(result);
  }
}
