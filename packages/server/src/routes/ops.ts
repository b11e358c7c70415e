/** The operator's routes: `/healthz` and `/metrics`. */
import { health, metricsText } from './responses.js';
import type { AppResponse, RouteContext } from './types.js';

/**
 * 200 while the engine takes work; 503 while it is starting, once it is closing, or while
 * degraded (`health.ts`). A worker of `serve --workers N` says which (`worker`, from 0).
 */
export function healthz(ctx: RouteContext, worker?: number): AppResponse {
  return health(ctx.engine.closing, ctx.engine.health.causes(), ctx.engine.starting, worker);
}

/** Prometheus text of the engine's and the HTTP side's metrics. */
export function metrics(ctx: RouteContext): AppResponse {
  return metricsText(ctx.engine.metrics.render());
}
