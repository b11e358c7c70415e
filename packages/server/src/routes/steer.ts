/** The steering route (§4, §8.1): a GET of the policy's `server_uri` or `reload_uri`. */
import type { DecideResult } from '../engine/types.js';
import { type BackOff, manifest, overBudget, overloaded, storeUnavailable } from './responses.js';
import { headerValue } from './target.js';
import type { AppResponse, RouteContext } from './types.js';

/** The response of a decision's result to a request for `target`. */
function answer(result: DecideResult, target: string): AppResponse {
  switch (result.kind) {
    case 'manifest':
      return manifest(result.body);
    case 'store_unavailable':
      return storeUnavailable(result, backOff(target));
    case 'overloaded':
      return overloaded(result.why, backOff(target));
  }
}

/**
 * The status that makes this request's player come back later (`BackOff`): 503 to an HLS client,
 * which names its pathway and throughput in `_HLS_` parameters (rfc8216bis-22 §7.4; hls.js sends
 * them from its first request), 429 to every other (a DASH client, whose first request may carry
 * no `_DASH_` parameter when `queryBeforeStart` is set, §8.3).
 */
function backOff(target: string): BackOff {
  return HLS_PARAMETER.test(target) ? 503 : 429;
}

/** A query part whose name begins with `_HLS_`. */
const HLS_PARAMETER = /[?&]_HLS_/;

/**
 * The decision of the request's report and session, and its manifest. The client's budgets are
 * spent first (`guard/budget.ts`): a request, and a new session when it carries none this server
 * minted.
 */
export function steer(ctx: RouteContext): AppResponse | Promise<AppResponse> {
  const { engine, budget, client } = ctx;
  const target = ctx.request.target;
  const over = budget?.spend('requests', client);
  if (over !== undefined) return overBudget(over, backOff(target));
  const session = engine.readSession(target) ?? null;
  if (session === null) {
    const overSessions = budget?.spend('sessions', client);
    if (overSessions !== undefined) return overBudget(overSessions, backOff(target));
  }
  let cmcd = headerValue(ctx.request.headers['cmcd-request']);
  if (cmcd !== undefined && cmcd.length > (ctx.limits.maxCmcdBytes ?? 1024)) {
    // Read for `bl` and `mtp` only (§4): a header this long is not read at all.
    engine.metrics.cmcdIgnored.inc();
    cmcd = undefined;
  }
  return engine
    .decide(cmcd === undefined ? { target, session } : { target, session, cmcd })
    .then((result) => answer(result, target));
}
