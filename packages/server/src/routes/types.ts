/** What the HTTP side of the server reads and writes: requests, responses and route rows. */
import type { SteeringEngine } from '../engine/engine.js';
import type { ClientBudget } from '../guard/budget.js';

/** A request as the application reads it. */
export interface AppRequest {
  readonly method: string;
  /** The request target as received (origin-form, or absolute-form). */
  readonly target: string;
  /** Header fields, names in lowercase (as `node:http` gives them). */
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /**
   * The body, read on demand up to `limit` bytes: `'too_large'` past it. Absent for a request
   * that has none.
   */
  readonly body?: (limit: number) => Promise<Uint8Array | 'too_large'>;
  /** The peer's address (the socket's), for the per-client budgets. */
  readonly peer?: string;
}

/** A response. */
export interface AppResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | Uint8Array;
  /** Close the connection after answering (a body left unread). */
  readonly close?: boolean;
}

/** The limits of the HTTP side. */
export interface AppLimits {
  /** The largest `POST /records` body (413 past it). */
  readonly maxRecordBytes: number;
  /** The longest request target (414 past it). */
  readonly maxTargetBytes: number;
  /** The longest `CMCD-Request` header read (default 1024): a longer one is not read. */
  readonly maxCmcdBytes?: number;
}

/** What a route's handler is given. */
export interface RouteContext {
  readonly request: AppRequest;
  /** The method, in uppercase. */
  readonly method: string;
  /** The path and the query of the target (`target.ts`). */
  readonly path: string;
  readonly query: string;
  /** What the row's `match` captured (a digest's hex, say); `''` when nothing. */
  readonly param: string;
  readonly engine: SteeringEngine;
  readonly limits: AppLimits;
  /** The per-client budgets (`guard/budget.ts`), spent by the routes; none when off. */
  readonly budget: ClientBudget | undefined;
  /** The client's address (`guard/budget.ts`: the peer, or behind a trusted proxy its client). */
  readonly client: string | undefined;
}

/** `match`'s answer for a path that is the row's but names nothing: 404 `no such <absent>`. */
export const NOT_FOUND: unique symbol = Symbol('not found');

/** One row of the route table. */
export interface Route {
  /** The route's name, the `route` label of `wai_steering_requests_total`. */
  readonly name: string;
  /** The methods it answers (uppercase); another gets 405 with `allow`. */
  readonly methods: readonly string[];
  /** The `Allow` header of its 405. */
  readonly allow: string;
  /**
   * Whether the path is the row's: `undefined` when not (the next row is tried), the captured
   * parameter when it is, {@link NOT_FOUND} when it is but names nothing (checked before the
   * method).
   */
  readonly match: (path: string) => string | typeof NOT_FOUND | undefined;
  /** What a {@link NOT_FOUND} names (`no such <absent>`). */
  readonly absent?: string;
  readonly handler: (ctx: RouteContext) => AppResponse | Promise<AppResponse>;
}
