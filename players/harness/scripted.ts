// A scripted steering endpoint: for the behaviour matrix (docs/players.md), each scenario's
// steering requests are answered by a script, not by a rule, so that the players can be shown
// every answer a steering server can give (a new priority, clones, TTLs, a moved RELOAD-URI, 429,
// 503, 410, 500, no answer, a body that does not parse). Scenarios share the endpoint: each has
// its own path prefix, `/s/<scenario>/`. Every request is recorded with when it arrived, what it
// was answered and when the answer was sent.
//
// The answers about the project's own server (budgets, overload, a restart) are not scripted: they
// come from the real server (test/server-answers.test.ts).

import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { close, listen } from './http.js';
import { Wake } from './wake.js';

/** A steering manifest's fields (content-steering §4, the HLS and DASH texts alike). */
export interface ManifestSpec {
  readonly priority: readonly string[];
  readonly ttl: number;
  /** `RELOAD-URI`: absolute, or relative to the request; omitted: the scenario's reload URI. */
  readonly reload?: string | null;
  readonly clones?: readonly {
    readonly 'BASE-ID': string;
    readonly ID: string;
    readonly 'URI-REPLACEMENT': {
      readonly HOST?: string;
      readonly PARAMS?: Record<string, string>;
    };
  }[];
}

export type Answer =
  | { readonly kind: 'manifest'; readonly manifest: ManifestSpec }
  | {
      readonly kind: 'status';
      readonly status: number;
      readonly headers?: Readonly<Record<string, string>>;
      readonly body?: string;
    }
  /** A 200 with the steering media type and a body that is not JSON. */
  | { readonly kind: 'garbage'; readonly body: string }
  /** No answer: the request is held for `ms`, then its connection is destroyed. */
  | { readonly kind: 'hang'; readonly ms: number };

export interface ScriptedRequest {
  /** `performance.now()` when it arrived (ms). */
  readonly at: number;
  /** When its answer was sent (or the connection dropped). */
  answeredAt: number | null;
  readonly method: string;
  /** The path and query after the scenario's prefix, e.g. `/steer?_HLS_pathway=cdn-b`. */
  readonly target: string;
  readonly headers: IncomingHttpHeaders;
  /** Which of the script's answers it got (its index, the last one repeating). */
  readonly answer: number;
  status: number | null;
}

export interface Scenario {
  readonly id: string;
  /** The steering URI the content description names. */
  readonly serverUri: string;
  /** The RELOAD-URI the manifests name unless the script says otherwise. */
  readonly reloadUri: string;
  /** GET requests, in order of arrival (CORS preflights are answered but not listed). */
  readonly requests: ScriptedRequest[];
}

export interface ScriptedEndpoint {
  readonly origin: string;
  /** Notified on every request and every answer. */
  readonly wake: Wake;
  /** Registers a scenario answering its n-th GET with `script[n]` (the last one repeating). */
  scenario(id: string, script: readonly Answer[]): Scenario;
  close(): Promise<void>;
}

const MEDIA_TYPE = 'application/vnd.apple.steering-list';

function manifestBody(m: ManifestSpec, reloadUri: string): string {
  const doc: Record<string, unknown> = { VERSION: 1, TTL: m.ttl };
  if (m.reload !== null) doc['RELOAD-URI'] = m.reload ?? reloadUri;
  doc['PATHWAY-PRIORITY'] = m.priority;
  if (m.clones !== undefined) doc['PATHWAY-CLONES'] = m.clones;
  return JSON.stringify(doc);
}

/** Starts the endpoint on 127.0.0.1 (any free port). */
export async function startScriptedEndpoint(): Promise<ScriptedEndpoint> {
  const scenarios = new Map<string, { scenario: Scenario; script: readonly Answer[] }>();
  const held = new Set<ServerResponse>();
  const wake = new Wake();
  const server = createServer((req, res) => {
    const at = performance.now();
    const url = req.url ?? '/';
    const m = /^\/s\/([A-Za-z0-9_-]+)(\/.*)$/.exec(url);
    const entry = m === null ? undefined : scenarios.get(m[1]!);
    res.setHeader('Access-Control-Allow-Origin', '*');
    if (req.method === 'OPTIONS') {
      res.setHeader('Access-Control-Allow-Methods', 'GET, OPTIONS');
      res.setHeader(
        'Access-Control-Allow-Headers',
        req.headers['access-control-request-headers'] ?? '*',
      );
      res.writeHead(204).end();
      return;
    }
    if (entry === undefined || req.method !== 'GET') {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('no such scenario\n');
      return;
    }
    const { scenario, script } = entry;
    const index = Math.min(scenario.requests.length, script.length - 1);
    const record: ScriptedRequest = {
      at,
      answeredAt: null,
      method: req.method,
      target: m![2]!,
      headers: req.headers,
      answer: index,
      status: null,
    };
    scenario.requests.push(record);
    wake.notify();
    const answer = script[index]!;
    const done = (status: number | null) => {
      record.status = status;
      record.answeredAt = performance.now();
      wake.notify();
    };
    res.setHeader('Cache-Control', 'no-store');
    switch (answer.kind) {
      case 'manifest':
        res
          .writeHead(200, { 'Content-Type': MEDIA_TYPE })
          .end(manifestBody(answer.manifest, scenario.reloadUri));
        done(200);
        return;
      case 'status':
        res
          .writeHead(answer.status, { 'Content-Type': 'application/json', ...answer.headers })
          .end(answer.body ?? `{"error":"scripted ${answer.status}"}\n`);
        done(answer.status);
        return;
      case 'garbage':
        res.writeHead(200, { 'Content-Type': MEDIA_TYPE }).end(answer.body);
        done(200);
        return;
      case 'hang': {
        held.add(res);
        const timer = setTimeout(() => {
          held.delete(res);
          done(null);
          res.destroy();
        }, answer.ms);
        res.on('close', () => {
          clearTimeout(timer);
          held.delete(res);
          if (record.answeredAt === null) done(null);
        });
        return;
      }
    }
  });
  const port = await listen(server, '127.0.0.1', 0);
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    wake,
    scenario(id, script) {
      if (script.length === 0) throw new TypeError('a script needs at least one answer');
      const scenario: Scenario = {
        id,
        serverUri: `${origin}/s/${id}/steer`,
        reloadUri: `${origin}/s/${id}/steer/reload`,
        requests: [],
      };
      scenarios.set(id, { scenario, script });
      return scenario;
    },
    async close() {
      for (const res of held) res.destroy();
      await close(server);
    },
  };
}
