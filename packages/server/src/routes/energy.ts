/**
 * The energy account (`docs/server.md`, *The energy account*), public
 * like the decisions and the log (every input is public evidence):
 *
 * - `GET /energy?from=…&to=…`: the account, its canonical JSON (RFC 8785) exactly as
 *   `writeAccount` writes it;
 * - `GET /energy/statement?from=…&to=…`: the signed statement, a C2SP signed note
 *   (`text/plain`), signed by the steering key under the log's origin;
 * - `GET /energy/series?from=…&to=…[&buckets=N][&samples=N]`: `{"account", "series"}`, the
 *   account's JSON value and the per-period figures behind it, for people (the console).
 *
 * A span refused, or a query that does not read, is `400` with one line. Each request spends one
 * of its client's request budget (`guard/budget.ts`); one account is computed at a time
 * (`energy/service.ts`).
 */
import { accountJson, writeAccount } from '@wai-steering/energy';
import { DEFAULT_BUCKETS, DEFAULT_SAMPLES, MAX_BUCKETS, MAX_SAMPLES } from '../energy/series.js';
import type { EnergyAnswer, EnergyService } from '../energy/service.js';
import { readEnergyQuery } from '../energy/span.js';
import {
  badQuery,
  json,
  overBudget,
  overloaded,
  problem,
  storeDamaged,
  storeUnavailable,
} from './responses.js';
import type { AppResponse, RouteContext } from './types.js';

const CORS = { 'access-control-allow-origin': '*' } as const;

/** What a route of the account serves. */
type Kind = 'account' | 'statement' | 'series';

/** The answer that is not an account, as a response; `undefined` for an account. */
function failed(answer: EnergyAnswer): AppResponse | undefined {
  switch (answer.kind) {
    case 'account':
      return undefined;
    case 'refused':
      return problem(400, 'bad_span', answer.message);
    case 'busy':
      return overloaded('energy accounts are being computed for other requests', 503);
    case 'no_signer':
      return problem(404, 'not_found', 'this server signs no statement');
    case 'store_damaged':
      return storeDamaged(answer.what);
    case 'store_unavailable':
      return storeUnavailable({ cause: 'query', why: 'the store does not answer for now' });
  }
}

/** The handler of one of the account's routes. */
export function energy(service: EnergyService, kind: Kind) {
  return async (ctx: RouteContext): Promise<AppResponse> => {
    if (kind === 'statement' && !service.signs) return failed({ kind: 'no_signer' })!;
    // An account is work: the client's request budget is spent, as for a record (`ingest.ts`).
    const over = ctx.budget?.spend('requests', ctx.client);
    if (over !== undefined) return overBudget(over);
    const q = readEnergyQuery(ctx.query, ctx.engine.now, {
      buckets: MAX_BUCKETS,
      samples: MAX_SAMPLES,
    });
    if ('error' in q) return badQuery(q.error);
    const answer = await service.account({
      from: q.from,
      to: q.to,
      ...(kind === 'series'
        ? {
            series: {
              buckets: q.buckets ?? DEFAULT_BUCKETS,
              samples: q.samples ?? DEFAULT_SAMPLES,
            },
          }
        : {}),
    });
    if (answer.kind !== 'account') return failed(answer)!;
    const { account } = answer;
    switch (kind) {
      case 'account':
        return {
          status: 200,
          headers: {
            'content-type': 'application/json; charset=utf-8',
            'cache-control': 'no-store',
            ...CORS,
          },
          body: writeAccount(account),
        };
      case 'statement':
        return {
          status: 200,
          headers: {
            'content-type': 'text/plain; charset=utf-8',
            'cache-control': 'no-store',
            ...CORS,
          },
          body: service.statement(account),
        };
      case 'series':
        return json(200, { account: accountJson(account), series: answer.series });
    }
  };
}
