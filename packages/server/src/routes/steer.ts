/** The steering route (§4, §8.1): a GET of the policy's `server_uri` or `reload_uri`. */
import { declined, manifest, overloaded } from './responses.js';
import { headerValue } from './target.js';
import type { AppResponse, RouteContext } from './types.js';

/**
 * The decision of the request's report and session, and its manifest; 503 when declined (the
 * client's budget, `guard/budget.ts`, spent first).
 */
export async function steer(ctx: RouteContext): Promise<AppResponse> {
  const over = ctx.engine.spend('requests', ctx.client);
  if (over !== undefined) return declined(over.cause, over.why, over.retryAfterS);
  const target = ctx.request.target;
  let cmcd = headerValue(ctx.request.headers['cmcd-request']);
  if (cmcd !== undefined && cmcd.length > (ctx.limits.maxCmcdBytes ?? 1024)) {
    // Read for `bl` and `mtp` only (§4): a header this long is not read at all.
    ctx.engine.metrics.cmcdIgnored.inc();
    cmcd = undefined;
  }
  const result = await ctx.engine.decide({
    target,
    ...(cmcd === undefined ? {} : { cmcd }),
    ...(ctx.client === undefined ? {} : { client: ctx.client }),
  });
  switch (result.kind) {
    case 'manifest':
      return manifest(result.body);
    case 'declined':
      return declined(result.cause, result.why, result.retryAfterS);
    case 'overloaded':
      return overloaded(result.why);
  }
}
