/**
 * The HTTP adapter: `node:http` requests to {@link SteeringApp.handle} and back. Bad input never
 * gives a 5xx and never a crash: a request the parser refuses is answered by Node (400, or 431
 * for headers past `maxHeaderSize`), one the application refuses with a 4xx and a JSON body.
 *
 * Connections are bounded (`connections.*` of the configuration):
 * - **timeouts**: headers (`headersTimeout`), a whole request (`requestTimeout`: a stalled request
 *   is answered `408`), keep-alive between requests (`keepAliveTimeout`), and a connection that
 *   waits on its client (answers unsent, reading paused) with no byte moving either way for
 *   `idleTimeout` is dropped: a client that does not read its answers, once the kernel's buffers
 *   are full (requests the server is still answering are not the client's silence);
 * - **unread answers**: a connection whose answers wait unsent past `maxUnreadBytes` (the client
 *   does not read them) is dropped;
 * - **a cap**: past `max` open connections a new one is answered `503` and closed;
 * - **pipelining**: at most `maxPipelined` requests of one connection are in flight (being
 *   answered); past it the connection is not read until answers go out. Node's parser may have
 *   parsed a whole chunk of requests before the pause takes effect: when a request comes past
 *   `4 × maxPipelined` not yet answered, it and every request of the connection waiting to
 *   start are answered `503` with `Retry-After` (after the answers of those in flight, as
 *   HTTP/1.1 orders them), and the connection closes after it; the requests after it are not
 *   started (nothing of the application runs for any of them), and past `4 × maxPipelined` of
 *   them the connection is dropped (a client that keeps sending is not waiting for answers);
 * - **fairness**: requests are started from a queue per connection, at most `perTurn` of each
 *   connection per event-loop turn, round-robin, so that one connection's pipelined burst
 *   cannot starve the others.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { SteeringApp } from './app.js';
import type { AppRequest, AppResponse } from './routes/types.js';
import { type RequestTrace, requestChannel, traceNow } from './trace.js';

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

/** Writes an answer; the bytes of its body. */
function send(res: ServerResponse, r: AppResponse): number {
  if (res.destroyed) return 0;
  const body = r.body;
  const length = typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.length;
  const headers: Record<string, string | number> = { ...r.headers, 'content-length': length };
  if (r.close === true) headers.connection = 'close';
  res.writeHead(r.status, headers);
  res.end(body);
  return length;
}

/**
 * Calls `done` once an answer has gone out (its last bytes handed to the kernel) or was dropped:
 * at once when it has (a short answer is written in the call that ends it), otherwise on the
 * response's `finish` or `close`, whichever comes first.
 */
function whenGone(res: ServerResponse, done: () => void): void {
  if (res.writableFinished || res.destroyed) {
    done();
    return;
  }
  let called = false;
  const once = (): void => {
    if (called) return;
    called = true;
    done();
  };
  res.once('finish', once);
  res.once('close', once);
}

/** Connection limits; durations in ms. */
export interface ConnectionLimits {
  readonly max: number;
  readonly idleTimeout: number;
  readonly headersTimeout: number;
  readonly requestTimeout: number;
  readonly keepAliveTimeout: number;
  readonly maxPipelined: number;
  readonly maxUnreadBytes: number;
  readonly perTurn: number;
}

/** The defaults of the configuration (`config/schema.ts`, `connections`). */
export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = Object.freeze({
  max: 10_000,
  idleTimeout: 30_000,
  headersTimeout: 10_000,
  requestTimeout: 30_000,
  keepAliveTimeout: 65_000,
  maxPipelined: 16,
  maxUnreadBytes: 262_144,
  perTurn: 4,
});

/** Options of {@link createHttpServer}. */
export interface HttpOptions {
  /** Largest request line and headers Node's parser takes (a larger request gets Node's 431). */
  readonly maxHeaderSize?: number;
  readonly connections?: Partial<ConnectionLimits>;
}

/** A request waiting to start. */
interface Waiting {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** When it was parsed (`trace.ts`), when anyone traces requests. */
  readonly parsed: number;
}

/** A connection's requests: those waiting to start, and those being answered. */
interface Conn {
  readonly socket: Socket;
  readonly queue: Waiting[];
  /** Requests started whose answers have not gone out to the kernel yet. */
  inFlight: number;
  /** The turn of its latest start, and how many it started in that turn. */
  turn: number;
  startedInTurn: number;
  /** Bytes of those answers. */
  unread: number;
  dropped: boolean;
  /** Past the pipeline's bound: its last answer (`503`) is queued, and it closes after it. */
  closing: boolean;
  /** Requests it sent after that, not started. */
  ignored: number;
  /** Bytes read and written when progress was last seen, and when (ms). */
  seen: number;
  since: number;
}

function raw(status: number, text: string, error: string, message: string): string {
  const body = `{"error":"${error}","message":"${message}"}\n`;
  return `HTTP/1.1 ${status} ${text}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;
}

/** A `node:http` server answering with the application. */
export function createHttpServer(app: SteeringApp, options: HttpOptions = {}): Server {
  const limits: ConnectionLimits = { ...DEFAULT_CONNECTION_LIMITS, ...options.connections };
  const dropped = app.engine.metrics.connectionsRefused;
  const conns = new Map<Socket, Conn>();
  /** Connections with requests waiting to start, in round-robin order. */
  const ready = new Set<Conn>();
  let open = 0;
  let scheduled = false;

  const drop = (c: Conn, why: string): void => {
    if (c.dropped) return;
    c.dropped = true;
    c.queue.length = 0;
    ready.delete(c);
    // A connection closing past the pipeline's bound was counted when it passed it.
    if (!c.closing) dropped.inc({ why });
    c.socket.destroy();
  };

  /**
   * A request past the pipeline's bound: it and the requests waiting to start are answered
   * `503` with `Retry-After` (no work of the application for any of them) once the answers
   * before them have gone out (Node writes a connection's answers in the order of its requests),
   * the last with `connection: close`, after which Node ends the connection. Nothing more of the
   * connection is read or started.
   */
  const refusePipelined = (c: Conn, res: ServerResponse): void => {
    c.closing = true;
    dropped.inc({ why: 'pipelined' });
    c.socket.pause();
    const busy = (close: boolean): AppResponse => ({
      status: 503,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'retry-after': '1',
        'cache-control': 'no-store',
      },
      body: `{"error":"too_many_pipelined","message":"more than ${4 * limits.maxPipelined} requests of this connection waited for their answers; send fewer at once, and retry this one"}\n`,
      close,
    });
    for (const w of c.queue.splice(0)) send(w.res, busy(false));
    ready.delete(c);
    send(res, busy(true));
  };

  /**
   * Event-loop turns, counted by the pump (one `setImmediate` a turn while requests come): a
   * connection starts at most `perTurn` requests a turn, the first at once as Node parses them
   * (no hop through the pump) and the rest from its queue, round-robin.
   */
  let turn = 0;

  /** A request of `c` answered, or dropped: the next may start. */
  const finish = (c: Conn): void => {
    c.inFlight--;
    if (c.queue.length > 0) schedule(c);
    else if (c.socket.isPaused() && !c.dropped && !c.closing) c.socket.resume();
  };

  /** Starts a request: the application's answer, written once it comes. */
  const start = (c: Conn, req: IncomingMessage, res: ServerResponse, parsed: number): void => {
    c.inFlight++;
    if (c.turn !== turn) {
      c.turn = turn;
      c.startedInTurn = 0;
    }
    c.startedInTurn++;
    const socket = c.socket;
    const request: AppRequest =
      req.method === 'POST' || req.method === 'PUT' || req.method === 'PATCH'
        ? {
            method: req.method,
            target: req.url ?? '/',
            headers: req.headers,
            ...(socket.remoteAddress === undefined ? {} : { peer: socket.remoteAddress }),
            body: bodyReader(req),
          }
        : {
            method: req.method ?? 'GET',
            target: req.url ?? '/',
            headers: req.headers,
            ...(socket.remoteAddress === undefined ? {} : { peer: socket.remoteAddress }),
          };
    const answered = app.handle(request);
    // Traced (`trace.ts`): the times of this request, published once its answer is gone.
    const handled = parsed < 0 ? -1 : traceNow();
    answered.then(
      (r) => answer(c, req, res, r, parsed, handled),
      () => {
        // `handle` does not reject; a failure here is the socket's.
        if (!res.headersSent && !res.destroyed) res.writeHead(500);
        res.end();
        finish(c);
      },
    );
  };

  /** Writes an answer; the request stays in flight until it has gone out. */
  const answer = (
    c: Conn,
    req: IncomingMessage,
    res: ServerResponse,
    r: AppResponse,
    parsed: number,
    handled: number,
  ): void => {
    if (c.dropped) {
      finish(c);
      return;
    }
    const socket = c.socket;
    const ready = parsed < 0 ? -1 : traceNow();
    const bytes = send(res, r) + 256;
    const written = parsed < 0 ? -1 : traceNow();
    if (r.close === true) req.resume();
    // Answers the client does not read: bounded in bytes here, in time by the idle timeout
    // (a connection whose answers do not go out makes no progress).
    c.unread += bytes;
    if (c.unread + socket.writableLength > limits.maxUnreadBytes) {
      drop(c, 'unread');
      finish(c);
      return;
    }
    // In flight until the answer has gone out: a client that does not read holds at most
    // `maxPipelined` answers.
    whenGone(res, () => {
      c.unread -= bytes;
      if (parsed >= 0 && requestChannel.hasSubscribers) {
        requestChannel.publish({
          parsed,
          handled,
          answered: ready,
          written,
          gone: traceNow(),
          status: r.status,
          socket,
        } satisfies RequestTrace);
      }
      finish(c);
    });
  };

  /** Whether `c` may start a request now: within its share of this turn and of the pipeline. */
  const mayStart = (c: Conn): boolean =>
    !c.dropped &&
    c.inFlight < limits.maxPipelined &&
    (c.turn !== turn || c.startedInTurn < limits.perTurn);

  /** One turn: at most `perTurn` requests of each ready connection are started. */
  const pump = (): void => {
    scheduled = false;
    turn++;
    for (const c of [...ready]) {
      while (c.queue.length > 0 && mayStart(c)) {
        const w = c.queue.shift()!;
        start(c, w.req, w.res, w.parsed);
      }
      // Out of the round when it has nothing to start now: a request that ends puts it back.
      if (c.queue.length === 0 || c.dropped || c.inFlight >= limits.maxPipelined) ready.delete(c);
    }
    if (ready.size > 0) schedulePump();
  };
  const schedulePump = (): void => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(pump);
  };
  const schedule = (c: Conn): void => {
    if (c.dropped) return;
    ready.add(c);
    schedulePump();
  };

  const server = createServer(
    {
      maxHeaderSize: options.maxHeaderSize ?? 65_536,
      requestTimeout: limits.requestTimeout,
      headersTimeout: Math.min(limits.headersTimeout, limits.requestTimeout),
      keepAliveTimeout: limits.keepAliveTimeout,
      // How often Node looks for requests past their timeouts: a stalled one is answered 408.
      connectionsCheckingInterval: Math.max(
        100,
        Math.min(1000, Math.floor(Math.min(limits.headersTimeout, limits.requestTimeout) / 4)),
      ),
    },
    (req, res) => {
      const socket = req.socket;
      const c = conns.get(socket);
      if (c === undefined || c.dropped) return;
      if (c.closing) {
        // Node's parser reads on whatever pause the stream is given: a client that keeps
        // sending past its 503 is not waiting for answers, and is dropped.
        if (++c.ignored > 4 * limits.maxPipelined) drop(c, 'pipelined');
        return;
      }
      if (c.queue.length + c.inFlight >= 4 * limits.maxPipelined) {
        refusePipelined(c, res);
        return;
      }
      const parsed = requestChannel.hasSubscribers ? traceNow() : -1;
      if (c.queue.length === 0 && mayStart(c)) {
        // Within the connection's share of this turn: started now; the pump counts the turn.
        start(c, req, res, parsed);
        schedulePump();
      } else {
        c.queue.push({ req, res, parsed });
        schedule(c);
      }
      // Past the bound in flight, the connection is not read until its answers go out.
      if (c.queue.length + c.inFlight >= limits.maxPipelined && !socket.isPaused()) socket.pause();
    },
  );
  server.timeout = limits.idleTimeout;
  // A connection that waits on its client (answers unsent, or its reading paused with nothing of
  // the server's to do) and moves no byte either way for idleTimeout is dropped: a client that
  // does not read its answers is dropped after that time, whatever Node's timers. Requests the
  // server is still answering (queued or in flight) are not the client's silence: a server busy
  // for longer than that does not drop the clients it is slow to answer.
  const waitsOnClient = (c: Conn): boolean =>
    c.socket.writableLength > 0 ||
    (c.socket.isPaused() && c.queue.length === 0 && c.inFlight === 0);
  const sweeper = setInterval(
    () => {
      const now = Date.now();
      for (const c of conns.values()) {
        const moved = c.socket.bytesRead + c.socket.bytesWritten;
        const waiting = waitsOnClient(c);
        if (moved !== c.seen || !waiting) {
          c.seen = moved;
          c.since = now;
        } else if (now - c.since >= limits.idleTimeout) drop(c, 'timeout');
      }
    },
    Math.max(50, Math.min(1000, Math.floor(limits.idleTimeout / 4))),
  );
  sweeper.unref();
  server.once('close', () => clearInterval(sweeper));
  server.on('timeout', (socket: Socket) => {
    const c = conns.get(socket);
    if (c === undefined) {
      socket.destroy();
      return;
    }
    // After a turn of the event loop longer than idleTimeout, timers run before the bytes that
    // came meanwhile are read: look again once they are. A connection the server is answering
    // still is not silent on the client's side (the sweeper drops it once it is).
    const moved = socket.bytesRead + socket.bytesWritten;
    setImmediate(() => {
      if (!conns.has(socket) || socket.bytesRead + socket.bytesWritten !== moved) return;
      if (waitsOnClient(c) || (c.queue.length === 0 && c.inFlight === 0)) drop(c, 'timeout');
    });
  });
  // Before Node's own listener: count, and refuse past the cap.
  server.prependListener('connection', (socket: Socket) => {
    const c: Conn = {
      socket,
      queue: [],
      inFlight: 0,
      turn: -1,
      startedInTurn: 0,
      unread: 0,
      dropped: false,
      closing: false,
      ignored: 0,
      seen: 0,
      since: Date.now(),
    };
    conns.set(socket, c);
    open++;
    socket.once('close', () => {
      open--;
      conns.delete(socket);
      c.dropped = true;
      c.queue.length = 0;
      ready.delete(c);
    });
    if (open > limits.max) {
      c.dropped = true;
      dropped.inc({ why: 'cap' });
      socket.end(
        raw(
          503,
          'Service Unavailable',
          'too_many_connections',
          `the server holds ${limits.max} connections already; retry later`,
        ),
      );
    }
  });
  // A request the parser refuses: 400 (or 431, 413) without a crash, as Node does by default,
  // with a body that says so; a request not received in time: 408.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    const c = conns.get(socket as Socket);
    if (!socket.writable || err.code === 'ECONNRESET' || c?.dropped === true) {
      socket.destroy();
      return;
    }
    if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      dropped.inc({ why: 'stalled' });
      socket.end(
        raw(408, 'Request Timeout', 'request_timeout', 'the request was not received in time'),
      );
      return;
    }
    const big = err.code === 'HPE_HEADER_OVERFLOW';
    socket.end(
      raw(
        big ? 431 : 400,
        big ? 'Request Header Fields Too Large' : 'Bad Request',
        'bad_request',
        big
          ? 'the request line and headers are too large'
          : 'the request does not parse as HTTP/1.1',
      ),
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
