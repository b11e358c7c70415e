/** The steering route (§4, §8.1): a GET of the policy's `server_uri` or `reload_uri`. */
import { manifest, overloaded } from './responses.js';
import { headerValue } from './target.js';
import type { AppResponse, RouteContext } from './types.js';

/** The decision of the request's report and session, and its manifest; 503 when declined. */
export async function steer(ctx: RouteContext): Promise<AppResponse> {
  const target = ctx.request.target;
  const cmcd = headerValue(ctx.request.headers['cmcd-request']);
  const result = await ctx.engine.decide(cmcd === undefined ? { target } : { target, cmcd });
  return result.kind === 'manifest' ? manifest(result.body) : overloaded(result.why);
}
