/**
 * `POST /admin/reload`: the operator's rotation of the policy and the key log without a signal
 * (as SIGHUP), behind a bearer token (`guard/auth.ts`).
 */
import { authorised, challenge } from '../guard/auth.js';
import { StoreUnavailableError } from '../store/store.js';
import { json, problem, storeUnavailable, unauthorised } from './responses.js';
import type { AppResponse, RouteContext } from './types.js';

/** What a reload put in force (`server.ts`). */
export interface Reloaded {
  readonly policy: string;
  readonly changed: boolean;
  readonly keyLog: boolean;
  readonly warnings: readonly string[];
  /** With `changed`: the instant the policy is in force from (µs, decimal). */
  readonly from?: string | null;
}

/**
 * The admin route's handler: reloads the policy file and the key log file; 200 with what is in
 * force, 409 with the problem when a file is refused (what was in force stays), 503
 * `store_unavailable` when the store did not keep what was read (try again).
 */
export function adminReload(token: string, reload: () => Promise<Reloaded>) {
  const wanted = { bearer: token };
  return async (ctx: RouteContext): Promise<AppResponse> => {
    if (!authorised(ctx.request.headers, wanted)) {
      return unauthorised(
        challenge(wanted, 'wai-steering admin'),
        'the admin route needs a bearer token',
      );
    }
    try {
      return json(200, await reload());
    } catch (e) {
      // The store not taking it is no refusal of the files: try again later.
      if (e instanceof StoreUnavailableError) {
        return storeUnavailable({ cause: 'commit', why: e.message });
      }
      return problem(409, 'refused', (e as Error).message);
    }
  };
}
