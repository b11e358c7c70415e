// A transparent recording proxy in front of the steering server: the policy's URIs name the
// proxy, which forwards every request unchanged (method, request target, headers, body) and
// records what the player sent and what the server answered. So the test sees the raw request
// target and headers as they reached the steering server, and every manifest it served.

import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { close, listen } from './http.js';

export interface Exchange {
  /** ms since the proxy started. */
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
  close(): Promise<void>;
}

/** Starts the proxy on 127.0.0.1 (any free port), forwarding to `upstream` (`http://host:port`). */
export async function startCaptureProxy(upstream: string): Promise<CaptureProxy> {
  const t0 = performance.now();
  const target = new URL(upstream);
  const exchanges: Exchange[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const forward = httpRequest(
        {
          host: target.hostname,
          port: target.port,
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
              at: Math.round(performance.now() - t0),
              method: req.method ?? '',
              target: req.url ?? '',
              headers: req.headers,
              status: up.statusCode ?? 0,
              responseHeaders: up.headers,
              body: bytes,
            });
            res.writeHead(up.statusCode ?? 502, up.headers).end(bytes);
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
  return { origin: `http://127.0.0.1:${port}`, exchanges, close: () => close(server) };
}
