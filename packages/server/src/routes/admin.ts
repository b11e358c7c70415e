/**
 * `POST /admin/reload`: the operator's rotation of the policy and the key log without a signal
 * (as SIGHUP), behind a bearer token (`guard/auth.ts`).
 */
import { authorised, challenge } from '../guard/auth.js';
import { json, problem, unauthorised } from './responses.js';
import type { AppResponse, RouteContext } from './types.js';

/** What a reload put in force (`server.ts`). */
export interface Reloaded {
  readonly policy: string;
  readonly changed: boolean;
  readonly keyLog: boolean;
  readonly warnings: readonly string[];
}

/**
 * The admin route's handler: reloads the policy file and the key log file; 200 with what is in
 * force, 409 with the problem when a file is refused (what was in force stays).
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
      return problem(409, 'refused', (e as Error).message);
    }
  };
}
