/** The operator's routes: `/healthz` and `/metrics`. */
import { health, metricsText } from './responses.js';
import type { AppResponse, RouteContext } from './types.js';

/** 200 while the engine takes work, 503 once it is closing. */
export function healthz(ctx: RouteContext): AppResponse {
  return health(ctx.engine.closing);
}

/** Prometheus text of the engine's and the HTTP side's metrics. */
export function metrics(ctx: RouteContext): AppResponse {
  return metricsText(ctx.engine.metrics.render());
}
