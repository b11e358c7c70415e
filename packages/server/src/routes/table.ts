/**
 * The server's route table, built once from the configuration, in the order rows are tried: the
 * steering URIs and the decision URI come from the policy in force (§3.1); the rest are fixed
 * (`docs/server.md`, *Endpoints*). Each handler is in its own file of `routes/`.
 */

import type { ConsoleRoutes } from '../console/routes.js';
import type { EnergyService } from '../energy/service.js';
import type { SteeringEngine } from '../engine/engine.js';
import type { LogReader } from '../log/reader.js';
import { adminReload, type Reloaded } from './admin.js';
import { capacity } from './capacity.js';
import { energy } from './energy.js';
import { ingest } from './ingest.js';
import { listing } from './listing.js';
import * as log from './log.js';
import { healthz, metrics } from './ops.js';
import { decision, keyLog, policy, record, roomDescriptor } from './reads.js';
import { recordListing } from './record-listing.js';
import { root } from './root.js';
import { steer } from './steer.js';
import { isDigestHex, pathOfUri } from './target.js';
import { NOT_FOUND, type Route } from './types.js';

/** What the table is built from: the engine, and the optional doors the configuration opens. */
export interface RouteTableOptions {
  readonly engine: SteeringEngine;
  /** `POST /admin/reload` behind a bearer token (`admin` of the configuration). */
  readonly admin?: { readonly token: string; readonly reload: () => Promise<Reloaded> };
  /** The console (`/status`, `/console/`), when it is on. */
  readonly console?: ConsoleRoutes;
  /** The decision log's reads (`/log/…`): a server has them always (`log/log.ts`). */
  readonly log?: LogReader;
  /** The energy account (`/energy`, `/energy/series`, `/energy/statement`): a server has it. */
  readonly energy?: EnergyService;
  /** A worker of `serve --workers N`: its place, which `/healthz` says (from 0). */
  readonly worker?: number;
}

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

/** A row matching one path exactly. */
function exactly(path: string) {
  return (p: string) => (p === path ? '' : undefined);
}

/** A row matching a path and everything under it. */
function under(path: string) {
  return (p: string) => (p === path || p.startsWith(`${path}/`) ? '' : undefined);
}

/**
 * §3.1: the paths of the policy in force's steering URIs and decision URI prefix, read again
 * when a rotation puts another policy in force.
 */
function policyPaths(engine: SteeringEngine) {
  let of: SteeringEngine['policy'] | undefined;
  let paths = { steering: new Set<string>(), decision: '' };
  return () => {
    const p = engine.policy;
    if (p !== of) {
      of = p;
      paths = {
        steering: new Set([pathOfUri(p.server_uri), pathOfUri(p.reload_uri)]),
        decision: pathOfUri(p.decision_uri),
      };
    }
    return paths;
  };
}

/** The route table of a server. */
export function buildRoutes(o: RouteTableOptions): Route[] {
  const paths = policyPaths(o.engine);
  const routes: Route[] = [
    {
      name: 'steering',
      methods: ['GET'],
      allow: 'GET, OPTIONS',
      match: (path) => (paths().steering.has(path) ? '' : undefined),
      handler: steer,
    },
    {
      name: 'decision',
      methods: READ,
      allow: READ_ALLOW,
      // Only a digest after the prefix is a decision; anything else goes on to the next rows.
      match: (path) => {
        const prefix = paths().decision;
        if (!path.startsWith(prefix)) return undefined;
        const hex = path.slice(prefix.length);
        return isDigestHex(hex) ? hex : undefined;
      },
      handler: decision,
    },
    {
      name: 'listing',
      methods: READ,
      allow: READ_ALLOW,
      match: exactly('/decisions'),
      handler: listing,
    },
    {
      // POST: a hop's record; GET: the records of a span, listed by time (`record-listing.ts`).
      name: 'ingest',
      methods: ['POST', ...READ],
      allow: 'GET, HEAD, POST, OPTIONS',
      match: exactly('/records'),
      handler: (ctx) => (ctx.method === 'POST' ? ingest(ctx) : recordListing(ctx)),
    },
    {
      name: 'capacity',
      methods: ['POST'],
      allow: 'POST, OPTIONS',
      match: exactly('/capacity'),
      handler: capacity,
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
      match: exactly('/healthz'),
      handler: o.worker === undefined ? healthz : (ctx) => healthz(ctx, o.worker),
    },
    {
      name: 'metrics',
      methods: READ,
      allow: 'GET, HEAD',
      match: exactly('/metrics'),
      handler: metrics,
    },
  ];
  const reader = o.log;
  if (reader !== undefined) {
    routes.push(
      {
        name: 'log_checkpoint',
        methods: READ,
        allow: READ_ALLOW,
        match: exactly('/log/checkpoint'),
        handler: () => log.checkpoint(reader),
      },
      {
        name: 'log_tile',
        methods: READ,
        allow: READ_ALLOW,
        // The path after `/log/`, read strictly by the handler.
        match: (path) => (path.startsWith('/log/tile/') ? path.slice('/log/'.length) : undefined),
        handler: (ctx) => log.tile(reader, ctx),
      },
      {
        name: 'log_proof',
        methods: READ,
        allow: READ_ALLOW,
        match: digestUnder('/log/proof/'),
        absent: 'decision',
        handler: (ctx) => log.proof(reader, ctx),
      },
    );
  }
  const service = o.energy;
  if (service !== undefined) {
    routes.push(
      {
        name: 'energy',
        methods: READ,
        allow: READ_ALLOW,
        match: exactly('/energy'),
        handler: energy(service, 'account'),
      },
      {
        name: 'energy_statement',
        methods: READ,
        allow: READ_ALLOW,
        match: exactly('/energy/statement'),
        handler: energy(service, 'statement'),
      },
      {
        name: 'energy_series',
        methods: READ,
        allow: READ_ALLOW,
        match: exactly('/energy/series'),
        handler: energy(service, 'series'),
      },
    );
  }
  if (o.admin !== undefined) {
    routes.push({
      name: 'admin',
      methods: ['POST'],
      allow: 'POST, OPTIONS',
      match: exactly('/admin/reload'),
      handler: adminReload(o.admin.token, o.admin.reload),
    });
  }
  const c = o.console;
  if (c !== undefined) {
    routes.push(
      {
        name: 'status',
        methods: READ,
        allow: 'GET, HEAD',
        match: under('/status'),
        handler: (ctx) => c.status(ctx.path, ctx.query, ctx.request.headers),
      },
      {
        name: 'console',
        methods: READ,
        allow: 'GET, HEAD',
        match: under('/console'),
        handler: (ctx) => c.page(ctx.path, ctx.request.headers),
      },
    );
  }
  // `/`: where a person's browser goes first (the console, or where the server answers).
  routes.push({
    name: 'root',
    methods: READ,
    allow: 'GET, HEAD',
    match: exactly('/'),
    handler: root(c !== undefined),
  });
  return routes;
}
