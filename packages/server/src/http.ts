/**
 * The HTTP adapter: `node:http` requests to {@link SteeringApp.handle} and back. Bad input never
 * gives a 5xx and never a crash: a request the parser refuses is answered by Node (400, or 431
 * for headers past `maxHeaderSize`), one the application refuses with a 4xx and a JSON body.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AppRequest, AppResponse, SteeringApp } from './app.js';

/** Reads a request's body up to `limit` bytes; `'too_large'` past it (the rest is not read). */
function bodyReader(req: IncomingMessage): (limit: number) => Promise<Uint8Array | 'too_large'> {
  return (limit) =>
    new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let done = false;
      req.on('data', (chunk: Buffer) => {
        if (done) return;
        size += chunk.length;
        if (size > limit) {
          done = true;
          req.pause();
          resolve('too_large');
          return;
        }
        chunks.push(chunk);
      });
      req.on('end', () => {
        if (done) return;
        done = true;
        const all = Buffer.concat(chunks, size);
        resolve(new Uint8Array(all.buffer, all.byteOffset, all.byteLength));
      });
      req.on('error', (e) => {
        if (done) return;
        done = true;
        reject(e);
      });
    });
}

function send(res: ServerResponse, r: AppResponse): void {
  if (res.destroyed) return;
  const body = r.body;
  const length = typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.length;
  const headers: Record<string, string | number> = { ...r.headers, 'content-length': length };
  if (r.close === true) headers.connection = 'close';
  res.writeHead(r.status, headers);
  res.end(body);
}

/** Methods whose requests the application may read a body of. */
const WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

/** Options of {@link createHttpServer}. */
export interface HttpOptions {
  /** Largest request line and headers Node's parser takes (a larger request gets Node's 431). */
  readonly maxHeaderSize?: number;
}

/** A `node:http` server answering with the application. */
export function createHttpServer(app: SteeringApp, options: HttpOptions = {}): Server {
  const server = createServer(
    {
      maxHeaderSize: options.maxHeaderSize ?? 65_536,
      requestTimeout: 30_000,
      headersTimeout: 20_000,
      keepAliveTimeout: 65_000,
    },
    (req, res) => {
      const request: AppRequest = {
        method: req.method ?? 'GET',
        target: req.url ?? '/',
        headers: req.headers,
        ...(WITH_BODY.has(req.method ?? '') ? { body: bodyReader(req) } : {}),
      };
      app.handle(request).then(
        (r) => {
          send(res, r);
          if (r.close === true) req.resume();
        },
        () => {
          // `handle` does not reject; a failure here is the socket's.
          if (!res.headersSent) res.writeHead(500);
          res.end();
        },
      );
    },
  );
  // A request the parser refuses: 400 (or 431, 413) without a crash, as Node does by default,
  // with a body that says so.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable || (err as { code?: string }).code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    const text = status === 431 ? 'Request Header Fields Too Large' : 'Bad Request';
    const body = `{"error":"bad_request","message":"${status === 431 ? 'the request line and headers are too large' : 'the request does not parse as HTTP/1.1'}"}\n`;
    socket.end(
      `HTTP/1.1 ${status} ${text}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
  return server;
}

/** Listens on `host:port`; the URL it listens at (`http://host:port`). */
export function listen(server: Server, host: string, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const onError = (e: Error): void => reject(e);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      const addr = server.address() as AddressInfo;
      const h = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
      resolve(`http://${h}:${addr.port}`);
    });
  });
}
