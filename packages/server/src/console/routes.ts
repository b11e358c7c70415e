/**
 * The console's answers (its rows are in the route table, `routes/table.ts`): `GET /status` (the
 * snapshot, `status.ts`), `GET /status/history` (the last 15 minutes, one sample a second), and
 * the console's pages under `/console/` (the operator's page at `/console/`, the verifier at
 * `/console/verify`, the Energy page at `/console/energy`, hashed assets under
 * `/console/assets/`). The console polls `/status` and
 * `/status/history?since=` once a second.
 *
 * Access (`console` in the configuration): the whole of it can be turned off (404), and
 * `/status` and `/status/history` protected by a bearer token or basic auth (`guard/auth.ts`,
 * the same check as the admin route's). With basic auth the
 * operator's page is protected too (so the browser asks once and sends the credentials after);
 * with a bearer token the page is served and asks for the token. The verifier page and the
 * assets hold no operational data and are never protected; nor are the steering and by-digest
 * routes, which this file does not serve.
 */
import type { SteeringEngine } from '../engine/engine.js';
import { authorised, type Credentials, challenge } from '../guard/auth.js';
import type { ConsoleActivity } from './activity.js';
import type { ConsoleAssets } from './assets.js';
import { REASONS_BY_CODE } from './names.js';
import { streamFile } from './players.js';
import { buildStatus, type StatusSource } from './status.js';

/** Who may read the console's data. */
export type ConsoleAuth = Credentials | null;

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
/**
 * The players page's: a player's script from this server or from the URL the visitor gives, its
 * media through MSE (`blob:`) from any server, its worker from a `blob:` (hls.js), its fonts and
 * images as `data:` (video.js). The page holds no operational data.
 */
const PLAYERS_CSP =
  "default-src 'self'; script-src 'self' http: https:; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; media-src 'self' blob: http: https:; worker-src 'self' blob:; connect-src *; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

function json(status: number, value: unknown, extra: Record<string, string> = {}): ConsoleResponse {
  return {
    status,
    headers: { 'content-type': JSON_TYPE, 'cache-control': 'no-store', ...extra },
    body: `${JSON.stringify(value)}\n`,
  };
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
      return engine.loadsNow();
    },
    liveValues: () => engine.live?.values(),
    get sessions() {
      return engine.sessions.size;
    },
    records: engine.index.records,
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

/** The console's answers over a server's state (the rows of the route table call them). */
export class ConsoleRoutes {
  constructor(
    private readonly o: ConsoleOptions,
    private readonly source: StatusSource,
  ) {}

  /** Whether the request carries what the configuration asks for. */
  authorised(headers: Readonly<Record<string, string | readonly string[] | undefined>>): boolean {
    return this.o.auth === null || authorised(headers, this.o.auth);
  }

  private unauthorised(): ConsoleResponse {
    const auth = this.o.auth;
    const scheme = auth !== null && 'bearer' in auth ? 'Bearer' : 'Basic';
    return json(
      401,
      { error: 'unauthorised', message: `the console needs ${scheme} credentials` },
      { 'www-authenticate': auth === null ? '' : challenge(auth, REALM) },
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

  /**
   * `/console`, `/console/`, `/console/verify`, `/console/energy`, `/console/players` (and its stream
   * under `/console/players/stream/`), `/console/spec-map` (what each section cited says) and
   * `/console/assets/<hashed name>`.
   */
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
    // The Energy page reads the public account (`/energy/series`): it asks for no credentials.
    if (rest === 'energy' || rest === 'energy.html') return this.html(assets, 'energy.html');
    if (rest === 'spec-map' || rest === 'spec-map.html') return this.html(assets, 'spec-map.html');
    if (rest === 'players' || rest === 'players.html') {
      return this.html(assets, 'players.html', PLAYERS_CSP);
    }
    if (rest.startsWith('players/stream/')) {
      // The content descriptions' URIs are absolute, on the origin the page was reached at.
      const host = typeof headers.host === 'string' ? headers.host : undefined;
      const origin =
        host === undefined || !/^[A-Za-z0-9.:[\]-]+$/.test(host) ? '' : `http://${host}`;
      const file = streamFile(
        assets,
        this.source.policy,
        rest.slice('players/stream/'.length),
        origin,
      );
      if (file !== undefined) {
        return {
          status: file.status,
          headers: {
            'content-type': file.type,
            'cache-control': 'no-cache',
            'x-content-type-options': 'nosniff',
            'access-control-allow-origin': '*',
          },
          body: file.body,
        };
      }
    }
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

  private html(assets: ConsoleAssets, name: string, csp = CSP): ConsoleResponse {
    const file = assets.get(name);
    if (file === undefined) return json(404, { error: 'not_found', message: 'no such page' });
    return {
      status: 200,
      headers: {
        'content-type': file.type,
        'cache-control': 'no-cache',
        'content-security-policy': csp,
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
      },
      body: file.bytes,
    };
  }
}
