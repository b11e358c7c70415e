/** The steering route (§4, §8.1): a GET of the policy's `server_uri` or `reload_uri`. */

import type { DecideResult } from '../engine/types.js';
import { manifest, overBudget, overloaded, storeUnavailable } from './responses.js';
import { headerValue } from './target.js';
import type { AppResponse, RouteContext } from './types.js';

/** The response of a decision's result. */
function answer(result: DecideResult): AppResponse {
  switch (result.kind) {
    case 'manifest':
      return manifest(result.body);
    case 'store_unavailable':
      return storeUnavailable(result);
    case 'overloaded':
      return overloaded(result.why);
  }
}

/**
 * The decision of the request's report and session, and its manifest. The client's budgets are
 * spent first (`guard/budget.ts`): a request, and a new session when it carries none this server
 * minted.
 */
export function steer(ctx: RouteContext): AppResponse | Promise<AppResponse> {
  const { engine, budget, client } = ctx;
  const over = budget?.spend('requests', client);
  if (over !== undefined) return overBudget(over);
  const target = ctx.request.target;
  const session = engine.readSession(target) ?? null;
  if (session === null) {
    const overSessions = budget?.spend('sessions', client);
    if (overSessions !== undefined) return overBudget(overSessions);
  }
  let cmcd = headerValue(ctx.request.headers['cmcd-request']);
  if (cmcd !== undefined && cmcd.length > (ctx.limits.maxCmcdBytes ?? 1024)) {
    // Read for `bl` and `mtp` only (§4): a header this long is not read at all.
    engine.metrics.cmcdIgnored.inc();
    cmcd = undefined;
  }
  return engine
    .decide(cmcd === undefined ? { target, session } : { target, session, cmcd })
    .then(answer);
}
