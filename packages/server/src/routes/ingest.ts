/** `POST /records`: a hop's `WMH1` (companion C5), read up to the limit, then to the engine. */
import { readBody } from '../guard/body.js';
import {
  incompleteBody,
  outsideHorizon,
  overBudget,
  overloaded,
  refused,
  stored,
  storeUnavailable,
  tooLarge,
} from './responses.js';
import type { AppResponse, RouteContext } from './types.js';

export async function ingest(ctx: RouteContext): Promise<AppResponse> {
  const closing = ctx.engine.admit();
  if (closing !== undefined) return overloaded(closing.why);
  const over = ctx.budget?.spend('requests', ctx.client);
  if (over !== undefined) return overBudget(over);
  const limit = ctx.limits.maxRecordBytes;
  const body = await readBody(ctx.request, limit);
  if (body === 'too_large') return tooLarge(limit);
  if (body === 'incomplete') return incompleteBody(); // the client went away mid-body
  const result = await ctx.engine.ingest(body);
  switch (result.kind) {
    case 'stored':
      return stored(result.digest, result.inserted, result.unused);
    case 'refused':
      return refused(result.reason, result.where, result.message);
    case 'outside':
      return outsideHorizon(result.refusal.error, result.refusal.message);
    case 'store_unavailable':
      return storeUnavailable(result);
    case 'overloaded':
      return overloaded(result.why);
  }
}
