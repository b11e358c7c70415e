/**
 * The console's routes: `GET /status` (the snapshot, `status.ts`), `GET /status/history` (the
 * last 15 minutes, one sample a second), and the console's pages under `/console/` (the
 * operator's page at `/console/`, the verifier at `/console/verify`, hashed assets under
 * `/console/assets/`). The console polls `/status` and `/status/history?since=` once a second.
 *
 * Access (`console` in the configuration): the whole of it can be turned off (404), and
 * `/status` and `/status/history` protected by a bearer token or basic auth. With basic auth the
 * operator's page is protected too (so the browser asks once and sends the credentials after);
 * with a bearer token the page is served and asks for the token. The verifier page and the
 * assets hold no operational data and are never protected; nor are the steering and by-digest
 * routes, which this file does not serve.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { SteeringEngine } from '../engine/engine.js';
import type { Route } from '../routes/types.js';
import type { ConsoleActivity } from './activity.js';
import type { ConsoleAssets } from './assets.js';
import { REASONS_BY_CODE } from './names.js';
import { buildStatus, type StatusSource } from './status.js';

/** Who may read the console's data. */
export type ConsoleAuth =
  | { readonly bearer: string }
  | { readonly basic: { readonly user: string; readonly password: string } }
  | null;

/** The console's configuration. */
export interface ConsoleOptions {
  /** Serve `/status` and `/console/` at all (default true); off, their paths are 404. */
  readonly enabled: boolean;
  readonly auth: ConsoleAuth;
  /** The built pages; none: `/console/` answers 503 saying the console is not built. */
  readonly assets?: ConsoleAssets;
}

/** A response of the console (the app's shape). */
export interface ConsoleResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | Uint8Array;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const IMMUTABLE = 'public, max-age=31536000, immutable';
const REALM = 'wai-steering console';
/** The pages' policy: scripts and styles of the console alone; the verifier fetches any origin. */
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src *; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

function json(status: number, value: unknown, extra: Record<string, string> = {}): ConsoleResponse {
  return {
    status,
    headers: { 'content-type': JSON_TYPE, 'cache-control': 'no-store', ...extra },
    body: `${JSON.stringify(value)}\n`,
  };
}

function sha(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** Compares two secrets in constant time (over their SHA-256, so lengths do not leak). */
function same(given: string, expected: string): boolean {
  return timingSafeEqual(sha(given), sha(expected));
}

function header(v: string | readonly string[] | undefined): string | undefined {
  if (v === undefined) return undefined;
  return typeof v === 'string' ? v : v[0];
}

/** What the `/status` snapshot reads of an engine (read only), with the console's activity. */
export function engineStatusSource(
  engine: SteeringEngine,
  activity: ConsoleActivity,
): StatusSource {
  // Getters: the policy in force, and the sessions' table, change when a policy is rotated in.
  return {
    get policy() {
      return engine.policy;
    },
    get policyDigest() {
      return engine.policyDigest;
    },
    get room() {
      return engine.room;
    },
    now: () => engine.now(),
    evidenceAt: (t) => engine.evidenceAt(t),
    // The loads decisions state now (sessions whose end has come are out, swept or not).
    get loads() {
      return engine.sessions.loadsAt(Number(engine.now()));
    },
    liveValues: () => engine.liveValues(),
    get sessions() {
      return engine.sessions.size;
    },
    records: engine.evidence,
    activity,
    decisionsByReason: () =>
      Object.fromEntries(
        REASONS_BY_CODE.slice(1).map((name) => [
          name,
          engine.metrics.decisions.get({ reason: name }),
        ]),
      ),
  };
}

/**
 * The console's rows of the route table: `status` (`/status`, `/status/…`) and `console`
 * (`/console`, `/console/…`); none when the console is off (the paths are then 404).
 */
export function consoleRoutes(
  engine: SteeringEngine,
  activity: ConsoleActivity,
  options: ConsoleOptions,
): Route[] {
  if (!options.enabled) return [];
  const c = new ConsoleRoutes(options, engineStatusSource(engine, activity));
  const read = ['GET', 'HEAD'] as const;
  return [
    {
      name: 'status',
      methods: read,
      allow: 'GET, HEAD',
      match: (path) => (path === '/status' || path.startsWith('/status/') ? '' : undefined),
      handler: (ctx) => c.status(ctx.path, ctx.query, ctx.request.headers),
    },
    {
      name: 'console',
      methods: read,
      allow: 'GET, HEAD',
      match: (path) => (path === '/console' || path.startsWith('/console/') ? '' : undefined),
      handler: (ctx) => c.page(ctx.path, ctx.request.headers),
    },
  ];
}

/** The console's answers over a server's state (the rows of {@link consoleRoutes} call them). */
export class ConsoleRoutes {
  constructor(
    private readonly o: ConsoleOptions,
    private readonly source: StatusSource,
  ) {}

  /** Whether the request carries what the configuration asks for. */
  authorised(headers: Readonly<Record<string, string | readonly string[] | undefined>>): boolean {
    const auth = this.o.auth;
    if (auth === null) return true;
    const given = header(headers.authorization) ?? '';
    if ('bearer' in auth) {
      const m = /^Bearer +(\S+) *$/i.exec(given);
      return m !== null && same(m[1]!, auth.bearer);
    }
    const m = /^Basic +([A-Za-z0-9+/=]+) *$/i.exec(given);
    if (m === null) return false;
    const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return false;
    // Both compared, whatever the first gives, so that timing tells nothing of which failed.
    const user = same(decoded.slice(0, colon), auth.basic.user);
    const password = same(decoded.slice(colon + 1), auth.basic.password);
    return user && password;
  }

  private unauthorised(): ConsoleResponse {
    const auth = this.o.auth;
    const scheme = auth !== null && 'bearer' in auth ? 'Bearer' : 'Basic';
    return json(
      401,
      { error: 'unauthorised', message: `the console needs ${scheme} credentials` },
      { 'www-authenticate': `${scheme} realm="${REALM}", charset="UTF-8"` },
    );
  }

  /** `/status` and `/status/history` (and any other `/status/…`: 404). */
  status(
    path: string,
    query: string,
    headers: Readonly<Record<string, string | readonly string[] | undefined>>,
  ): ConsoleResponse {
    if (path !== '/status' && path !== '/status/history') {
      return json(404, { error: 'not_found', message: 'no such resource' });
    }
    if (!this.authorised(headers)) return this.unauthorised();
    if (path === '/status') return json(200, buildStatus(this.source));
    const since = /(?:^|&)since=(\d{1,15})(?:&|$)/.exec(query);
    const history = this.source.activity.history(since === null ? undefined : Number(since[1]));
    return json(200, {
      step_s: 1,
      pathways: this.source.policy.pathways.map((p) => p.id),
      ...history,
    });
  }

  /** `/console`, `/console/`, `/console/verify` and `/console/assets/<hashed name>`. */
  page(
    path: string,
    headers: Readonly<Record<string, string | readonly string[] | undefined>>,
  ): ConsoleResponse {
    if (path === '/console') {
      return {
        status: 308,
        headers: { location: '/console/', 'cache-control': 'no-cache' },
        body: '',
      };
    }
    const assets = this.o.assets;
    if (assets === undefined || assets.size === 0) {
      return json(503, {
        error: 'console_not_built',
        message: 'the console is not built: run pnpm build',
      });
    }
    const rest = path.slice('/console/'.length);
    if (rest === '' || rest === 'index.html') {
      // With basic auth the operator's page asks for the credentials its data needs.
      const auth = this.o.auth;
      if (auth !== null && 'basic' in auth && !this.authorised(headers)) return this.unauthorised();
      return this.html(assets, 'index.html');
    }
    if (rest === 'verify' || rest === 'verify.html') return this.html(assets, 'verify.html');
    if (/^assets\/[A-Za-z0-9._-]+$/.test(rest)) {
      const file = assets.get(rest);
      if (file !== undefined) {
        return {
          status: 200,
          headers: {
            'content-type': file.type,
            'cache-control': IMMUTABLE,
            'x-content-type-options': 'nosniff',
            'access-control-allow-origin': '*',
          },
          body: file.bytes,
        };
      }
    }
    return json(404, { error: 'not_found', message: 'no such console page' });
  }

  private html(assets: ConsoleAssets, name: string): ConsoleResponse {
    const file = assets.get(name);
    if (file === undefined) return json(404, { error: 'not_found', message: 'no such page' });
    return {
      status: 200,
      headers: {
        'content-type': file.type,
        'cache-control': 'no-cache',
        'content-security-policy': CSP,
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
      },
      body: file.bytes,
    };
  }
}
