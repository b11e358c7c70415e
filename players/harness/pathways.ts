// The CDN pathways: one static server per pathway, each on its own loopback address and on one
// port, port 80 by default. All of 127.0.0.0/8 reaches `lo` on Linux, so each pathway has its own
// host; a clone pathway is the same server reached by another host, which is what a content
// steering `URI-REPLACEMENT` `HOST` gives: it replaces the hostname and keeps the port. Port 80
// because dash.js 5 writes a clone's BaseURL without the port (see docs/players.md): on the
// default port a HOST replacement means the same in all three players.
//
// Each server logs the requests it serves, so a test knows which pathway a player fetched from.

import { createReadStream, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { CONTENT_TYPES, close, cors, listen } from './http.js';
import { Wake } from './wake.js';

export interface PathwayHost {
  /** The pathway ID whose traffic this host carries. */
  readonly id: string;
  /** The loopback address, which is also the pathway's hostname. */
  readonly host: string;
}

export interface ServedRequest {
  /** The pathway ID of the host that served it. */
  readonly pathway: string;
  readonly host: string;
  readonly path: string;
  /** The query string, without `?` (a PARAMS clone's parameters show here). */
  readonly query: string;
  /** The scenario of a `/s/<scenario>/…` path (the behaviour matrix), else null. */
  readonly scenario: string | null;
  readonly status: number;
  /** When the request arrived, `performance.now()` of this process (ms). */
  readonly at: number;
}

export interface Pathways {
  readonly port: number;
  /** `http://host` (port 80) or `http://host:port`, by pathway ID. */
  readonly origins: ReadonlyMap<string, string>;
  /** Every request served, in order. */
  readonly log: ServedRequest[];
  /**
   * Documents served from memory (the multivariant playlist, the MPD), by path; a function is
   * called for each request (a live playlist or MPD).
   */
  readonly documents: Map<string, string | (() => string)>;
  /** Notified on every request logged. */
  readonly wake: Wake;
  /** The media segment requests (`.ts`, `.m4s` but init segments) served since `since`. */
  segments(since?: number): ServedRequest[];
  close(): Promise<void>;
}

/** Starts one server per host, all on `port`, serving `root` and `documents`. */
export async function startPathways(
  hosts: readonly PathwayHost[],
  root: string,
  port = 80,
): Promise<Pathways> {
  const now = () => Math.round(performance.now());
  const log: ServedRequest[] = [];
  const documents = new Map<string, string | (() => string)>();
  const servers: Server[] = [];
  const origins = new Map<string, string>();
  const wake = new Wake();

  for (const { id, host } of hosts) {
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const path = url.pathname;
      const query = url.search.slice(1);
      // The behaviour matrix's scenarios share the servers, each under `/s/<scenario>/`.
      const scoped = /^\/s\/([A-Za-z0-9_-]+)(\/.*)$/.exec(path);
      const scenario = scoped === null ? null : scoped[1]!;
      // Logged when the request arrives: that is when the player chose the pathway.
      const at = now();
      res.on('finish', () => {
        if (req.method === 'GET') {
          log.push({ pathway: id, host, path, query, scenario, status: res.statusCode, at });
          wake.notify();
        }
      });
      if (cors(req, res)) return;
      res.setHeader('Cache-Control', 'no-store');
      const doc = documents.get(path);
      const type = CONTENT_TYPES[extname(path)] ?? 'application/octet-stream';
      if (doc !== undefined) {
        res.writeHead(200, { 'Content-Type': type }).end(typeof doc === 'string' ? doc : doc());
        return;
      }
      const file = join(
        root,
        normalize(scoped === null ? path : scoped[2]!).replace(/^(\.\.[/\\])+/, ''),
      );
      let size: number;
      try {
        const st = statSync(file);
        if (!st.isFile()) throw new Error('not a file');
        size = st.size;
      } catch {
        res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
        return;
      }
      res.writeHead(200, { 'Content-Type': type, 'Content-Length': size });
      if (req.method === 'HEAD') res.end();
      else createReadStream(file).pipe(res);
    });
    servers.push(server);
    try {
      await listen(server, host, port);
    } catch (error) {
      await Promise.all(servers.map(close));
      throw new Error(
        `cannot listen on ${host}:${port} for pathway ${id} (${(error as Error).message}); ` +
          'the pathways need that port free on those loopback addresses (port 80 needs root)',
      );
    }
    origins.set(id, port === 80 ? `http://${host}` : `http://${host}:${port}`);
  }

  return {
    port,
    origins,
    log,
    documents,
    wake,
    segments(since = 0) {
      return log
        .filter((r) => r.at >= since && /\.(ts|m4s)$/.test(r.path) && !/\/init-/.test(r.path))
        .sort((a, b) => a.at - b.at);
    },
    close: () => Promise.all(servers.map(close)).then(() => undefined),
  };
}
