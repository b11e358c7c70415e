/**
 * The HTTP side of the steering server: the route table (`routes/table.ts`) over the
 * {@link SteeringEngine}. {@link SteeringApp.handle} is a function from a request (method,
 * target, headers, body) to a response, so that the `node:http` adapter (`http.ts`) stays thin
 * and the routes can be fuzzed without sockets. The responses are built in `routes/responses.ts`.
 */
import type { SteeringEngine } from './engine/engine.js';
import type { ClientBudget } from './guard/budget.js';
import {
  badTarget,
  internal,
  notAllowed,
  notFound,
  preflight,
  uriTooLong,
} from './routes/responses.js';
import { buildRoutes } from './routes/table.js';
import { headerValue, splitTarget } from './routes/target.js';
import {
  type AppLimits,
  type AppRequest,
  type AppResponse,
  NOT_FOUND,
  type Route,
  type RouteContext,
} from './routes/types.js';

/** Options of {@link SteeringApp}. */
export interface AppOptions extends AppLimits {
  /** The route table (default: `buildRoutes` of the engine alone, no admin, no console). */
  readonly routes?: readonly Route[];
  /** The per-client budgets, spent at the door (`guard/budget.ts`); none by default. */
  readonly budget?: ClientBudget;
}

/** The steering server's HTTP application: the route table over an engine. */
export class SteeringApp {
  readonly routes: readonly Route[];
  readonly budget: ClientBudget | undefined;
  private readonly limits: AppLimits;
  /** Each route name's number, for the request counter's slots. */
  private readonly routeIndex = new Map<string, number>();

  constructor(
    readonly engine: SteeringEngine,
    options: AppOptions,
  ) {
    this.routes = options.routes ?? buildRoutes({ engine });
    this.budget = options.budget;
    for (const name of ['other', 'error', 'cors', ...this.routes.map((r) => r.name)]) {
      if (!this.routeIndex.has(name)) this.routeIndex.set(name, this.routeIndex.size + 1);
    }
    this.limits = {
      maxRecordBytes: options.maxRecordBytes,
      maxTargetBytes: options.maxTargetBytes,
      ...(options.maxCmcdBytes === undefined ? {} : { maxCmcdBytes: options.maxCmcdBytes }),
    };
  }

  /** Answers one request; never throws for any input. */
  async handle(req: AppRequest): Promise<AppResponse> {
    const started = process.hrtime.bigint();
    let route = 'other';
    let res: AppResponse;
    try {
      const routed = this.route(req);
      route = routed.route;
      res = await routed.response;
    } catch (e) {
      console.error('wai-steering: internal error:', e);
      route = 'error';
      res = internal();
    }
    const status = res.status;
    const m = this.engine.metrics;
    // One slot per route and status, found by a number: no string is built per request.
    m.requests.incKey((this.routeIndex.get(route) ?? 0) * 1000 + status, () => ({
      route,
      code: String(status),
    }));
    if (route === 'steering' && status === 200) {
      m.latency.observe(Number(process.hrtime.bigint() - started) / 1e9);
    }
    return res;
  }

  /** The route of a request and its response (a promise when its handler's is). */
  private route(req: AppRequest): {
    route: string;
    response: AppResponse | Promise<AppResponse>;
  } {
    const max = this.limits.maxTargetBytes;
    if (req.target.length > max) return { route: 'other', response: uriTooLong(max) };
    const split = splitTarget(req.target);
    if (split === undefined) return { route: 'other', response: badTarget() };
    const method = req.method.toUpperCase();
    if (method === 'OPTIONS') return { route: 'cors', response: preflight() };
    const { path, query } = split;
    for (const row of this.routes) {
      const param = row.match(path);
      if (param === undefined) continue;
      if (param === NOT_FOUND) {
        return { route: row.name, response: notFound(row.absent ?? 'resource') };
      }
      if (!row.methods.includes(method)) {
        return { route: row.name, response: notAllowed(row.allow) };
      }
      const budget = this.budget;
      const ctx: RouteContext = {
        request: req,
        method,
        path,
        query,
        param,
        engine: this.engine,
        limits: this.limits,
        budget,
        client: budget?.clientOf(req.peer, headerValue(req.headers['x-forwarded-for'])),
      };
      return { route: row.name, response: row.handler(ctx) };
    }
    return { route: 'other', response: notFound('resource') };
  }
}
