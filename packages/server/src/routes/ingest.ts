/** `POST /records`: a hop's `WMH1` (companion C5), read up to the limit, then to the engine. */
import {
  declined,
  incompleteBody,
  outsideHorizon,
  overloaded,
  refused,
  stored,
  tooLarge,
} from './responses.js';
import { headerValue } from './target.js';
import type { AppResponse, RouteContext } from './types.js';

export async function ingest(ctx: RouteContext): Promise<AppResponse> {
  const closing = ctx.engine.admit();
  if (closing !== undefined) return overloaded(closing.why);
  const over = ctx.engine.spend('requests', ctx.client);
  if (over !== undefined) return declined(over.cause, over.why, over.retryAfterS);
  const limit = ctx.limits.maxRecordBytes;
  const req = ctx.request;
  const declared = headerValue(req.headers['content-length']);
  if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > limit) {
    return tooLarge(limit);
  }
  let body: Uint8Array | 'too_large';
  try {
    body = req.body === undefined ? new Uint8Array(0) : await req.body(limit);
  } catch {
    return incompleteBody(); // the client went away mid-body
  }
  if (body === 'too_large') return tooLarge(limit);
  const result = await ctx.engine.ingest(body);
  switch (result.kind) {
    case 'stored':
      return stored(result.digest, result.inserted, result.unused);
    case 'refused':
      return refused(result.reason, result.where, result.message);
    case 'outside':
      return outsideHorizon(result.refusal.error, result.refusal.message);
    case 'overloaded':
      return overloaded(result.why);
  }
}
