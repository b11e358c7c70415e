/**
 * The HTTP side of the steering server: a route table over the {@link SteeringEngine}. Each row
 * names its methods, matches a path and hands the request to its handler (`routes/`); the
 * responses are built in `routes/responses.ts`. {@link SteeringApp.handle} is a function from a
 * request (method, target, headers, body) to a response, so that the `node:http` adapter
 * (`http.ts`) stays thin and the routes can be fuzzed without sockets.
 */
import type { SteeringEngine } from './engine/engine.js';
import { ingest } from './routes/ingest.js';
import { healthz, metrics } from './routes/ops.js';
import { decision, keyLog, policy, record, roomDescriptor } from './routes/reads.js';
import {
  badTarget,
  internal,
  notAllowed,
  notFound,
  preflight,
  uriTooLong,
} from './routes/responses.js';
import { steer } from './routes/steer.js';
import { isDigestHex, pathOfUri, splitTarget } from './routes/target.js';
import {
  type AppLimits,
  type AppRequest,
  type AppResponse,
  NOT_FOUND,
  type Route,
  type RouteContext,
} from './routes/types.js';

export type { AppLimits, AppRequest, AppResponse, Route, RouteContext } from './routes/types.js';
export { NOT_FOUND } from './routes/types.js';

const READ = ['GET', 'HEAD'] as const;
const READ_ALLOW = 'GET, HEAD, OPTIONS';

/** A row matching the paths `prefix` + a digest: `NOT_FOUND` for anything else after `prefix`. */
function digestUnder(prefix: string) {
  return (path: string) => {
    if (!path.startsWith(prefix)) return undefined;
    const hex = path.slice(prefix.length);
    return isDigestHex(hex) ? hex : NOT_FOUND;
  };
}

/** A row matching `/rooms/<room id>/<leaf>`. */
function roomPath(leaf: string) {
  const re = new RegExp(`^/rooms/([0-9a-fA-F]{64})/${leaf}$`);
  return (path: string) => re.exec(path)?.[1];
}

/**
 * The server's route table, in the order rows are tried: the steering URIs and the decision URI
 * come from the policy (§3.1); the rest are fixed (`docs/server.md`, *Endpoints*).
 */
export function steeringRoutes(engine: SteeringEngine): Route[] {
  const { server_uri, reload_uri, decision_uri } = engine.policy;
  const steeringPaths = new Set([pathOfUri(server_uri), pathOfUri(reload_uri)]);
  const decisionPrefix = pathOfUri(decision_uri);
  return [
    {
      name: 'steering',
      methods: ['GET'],
      allow: 'GET, OPTIONS',
      match: (path) => (steeringPaths.has(path) ? '' : undefined),
      handler: steer,
    },
    {
      name: 'decision',
      methods: READ,
      allow: READ_ALLOW,
      // Only a digest after the prefix is a decision; anything else goes on to the next rows.
      match: (path) => {
        if (!path.startsWith(decisionPrefix)) return undefined;
        const hex = path.slice(decisionPrefix.length);
        return isDigestHex(hex) ? hex : undefined;
      },
      handler: decision,
    },
    {
      name: 'ingest',
      methods: ['POST'],
      allow: 'POST, OPTIONS',
      match: (path) => (path === '/records' ? '' : undefined),
      handler: ingest,
    },
    {
      name: 'record',
      methods: READ,
      allow: READ_ALLOW,
      match: digestUnder('/records/'),
      absent: 'record',
      handler: record,
    },
    {
      name: 'policy',
      methods: READ,
      allow: READ_ALLOW,
      match: digestUnder('/policies/'),
      absent: 'policy',
      handler: policy,
    },
    {
      name: 'room',
      methods: READ,
      allow: READ_ALLOW,
      match: roomPath('descriptor'),
      handler: roomDescriptor,
    },
    {
      name: 'key_log',
      methods: READ,
      allow: READ_ALLOW,
      match: roomPath('key-log'),
      handler: keyLog,
    },
    {
      name: 'healthz',
      methods: READ,
      allow: 'GET, HEAD',
      match: (path) => (path === '/healthz' ? '' : undefined),
      handler: healthz,
    },
    {
      name: 'metrics',
      methods: READ,
      allow: 'GET, HEAD',
      match: (path) => (path === '/metrics' ? '' : undefined),
      handler: metrics,
    },
  ];
}

/** Options of {@link SteeringApp}. */
export interface AppOptions extends AppLimits {
  /** The route table (default {@link steeringRoutes} of the engine). */
  readonly routes?: readonly Route[];
}

/** The steering server's HTTP application: the route table over an engine. */
export class SteeringApp {
  readonly routes: readonly Route[];
  private readonly limits: AppLimits;

  constructor(
    readonly engine: SteeringEngine,
    options: AppOptions,
  ) {
    this.routes = options.routes ?? steeringRoutes(engine);
    this.limits = {
      maxRecordBytes: options.maxRecordBytes,
      maxTargetBytes: options.maxTargetBytes,
    };
  }

  /** Answers one request; never throws for any input. */
  async handle(req: AppRequest): Promise<AppResponse> {
    const started = process.hrtime.bigint();
    let route = 'other';
    let res: AppResponse;
    try {
      [route, res] = await this.route(req);
    } catch (e) {
      console.error('wai-steering: internal error:', e);
      route = route === 'other' ? 'error' : route;
      res = internal();
    }
    const status = res.status;
    const m = this.engine.metrics;
    m.requests.incKey(`${route} ${status}`, () => ({ route, code: String(status) }));
    if (route === 'steering' && status === 200) {
      m.latency.observe(Number(process.hrtime.bigint() - started) / 1e9);
    }
    return res;
  }

  private async route(req: AppRequest): Promise<[string, AppResponse]> {
    const max = this.limits.maxTargetBytes;
    if (req.target.length > max) return ['other', uriTooLong(max)];
    const split = splitTarget(req.target);
    if (split === undefined) return ['other', badTarget()];
    const method = req.method.toUpperCase();
    if (method === 'OPTIONS') return ['cors', preflight()];
    const { path, query } = split;
    for (const row of this.routes) {
      const param = row.match(path);
      if (param === undefined) continue;
      if (param === NOT_FOUND) return [row.name, notFound(row.absent ?? 'resource')];
      if (!row.methods.includes(method)) return [row.name, notAllowed(row.allow)];
      const ctx: RouteContext = {
        request: req,
        method,
        path,
        query,
        param,
        engine: this.engine,
        limits: this.limits,
      };
      return [row.name, await row.handler(ctx)];
    }
    return ['other', notFound('resource')];
  }
}
