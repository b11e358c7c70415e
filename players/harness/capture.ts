// A transparent recording proxy in front of the steering server: the policy's URIs name the
// proxy, which forwards every request unchanged (method, request target, headers, body) and
// records what the player sent and what the server answered. So the test sees the raw request
// target and headers as they reached the steering server, and every manifest it served.

import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { close, listen } from './http.js';
import { Wake } from './wake.js';

export interface Exchange {
  /** When the answer was complete, `performance.now()` of this process (ms). */
  readonly at: number;
  readonly method: string;
  /** The raw request target, exactly as the client sent it. */
  readonly target: string;
  readonly headers: IncomingHttpHeaders;
  readonly status: number;
  readonly responseHeaders: IncomingHttpHeaders;
  readonly body: Buffer;
}

export interface CaptureProxy {
  readonly origin: string;
  readonly exchanges: Exchange[];
  /** Notified on every exchange recorded. */
  readonly wake: Wake;
  /** Where to forward (`http://host:port`); set once the steering server listens. */
  setUpstream(url: string): void;
  close(): Promise<void>;
}

/**
 * Starts the proxy on 127.0.0.1 (any free port). It answers 502 until {@link
 * CaptureProxy.setUpstream} names the steering server: the policy must name the proxy before the
 * server that serves the policy can start.
 */
export async function startCaptureProxy(): Promise<CaptureProxy> {
  let target: URL | undefined;
  const exchanges: Exchange[] = [];
  const wake = new Wake();
  const server = createServer((req, res) => {
    if (target === undefined) {
      res.writeHead(502, { 'Content-Type': 'text/plain' }).end('proxy: no upstream yet\n');
      return;
    }
    const upstream = target;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const forward = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: req.headers,
        },
        (up) => {
          const body: Buffer[] = [];
          up.on('data', (c: Buffer) => body.push(c));
          up.on('end', () => {
            const bytes = Buffer.concat(body);
            exchanges.push({
              at: Math.round(performance.now()),
              method: req.method ?? '',
              target: req.url ?? '',
              headers: req.headers,
              status: up.statusCode ?? 0,
              responseHeaders: up.headers,
              body: bytes,
            });
            res.writeHead(up.statusCode ?? 502, up.headers).end(bytes);
            wake.notify();
          });
        },
      );
      forward.on('error', (error) => {
        res.writeHead(502, { 'Content-Type': 'text/plain' }).end(`proxy: ${error.message}\n`);
      });
      forward.end(Buffer.concat(chunks));
    });
  });
  const port = await listen(server, '127.0.0.1', 0);
  return {
    origin: `http://127.0.0.1:${port}`,
    exchanges,
    wake,
    setUpstream(url) {
      target = new URL(url);
    },
    close: () => close(server),
  };
}
