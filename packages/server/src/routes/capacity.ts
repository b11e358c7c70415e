/**
 * `POST /capacity`: a site's capacity report (`live/report.ts`, `docs/live-policy.md`), a compact
 * JWS in the body; and `POST /admin/reload`, the operator's rotation of the policy and the key
 * log without a signal, behind a bearer token.
 */
import { timingSafeEqual } from 'node:crypto';
import { MAX_REPORT_BYTES } from '../live/report.js';
import {
  capacityOff,
  capacityRefused,
  capacityTaken,
  forbidden,
  incompleteBody,
  json,
  overloaded,
  problem,
  tooLarge,
} from './responses.js';
import { headerValue } from './target.js';
import type { AppResponse, RouteContext } from './types.js';

async function readBody(ctx: RouteContext, limit: number): Promise<Uint8Array | AppResponse> {
  const req = ctx.request;
  const declared = headerValue(req.headers['content-length']);
  if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > limit) {
    return tooLarge(limit, 'a report');
  }
  let body: Uint8Array | 'too_large';
  try {
    body = req.body === undefined ? new Uint8Array(0) : await req.body(limit);
  } catch {
    return incompleteBody();
  }
  return body === 'too_large' ? tooLarge(limit, 'a report') : body;
}

export async function capacity(ctx: RouteContext): Promise<AppResponse> {
  const declined = ctx.engine.admit();
  if (declined !== undefined) return overloaded(declined.why);
  const body = await readBody(ctx, MAX_REPORT_BYTES);
  if (!(body instanceof Uint8Array)) return body;
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
  }
}

/** Whether the request carries `Authorization: Bearer <token>` (compared in constant time). */
function authorised(ctx: RouteContext, token: string): boolean {
  const given = headerValue(ctx.request.headers.authorization);
  if (given === undefined || !given.startsWith('Bearer ')) return false;
  const a = Buffer.from(given.slice('Bearer '.length).trim());
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The admin route's handler: reloads the policy file and the key log file (as SIGHUP does);
 * 200 with what is in force, 409 with the problem when a file is refused (what was in force
 * stays).
 */
export function adminReload(
  token: string,
  reload: () => Promise<{ policy: string; changed: boolean; warnings: readonly string[] }>,
) {
  return async (ctx: RouteContext): Promise<AppResponse> => {
    if (!authorised(ctx, token)) return forbidden();
    try {
      const r = await reload();
      return json(200, r);
    } catch (e) {
      return problem(409, 'refused', (e as Error).message);
    }
  };
}
