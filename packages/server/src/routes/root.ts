/**
 * `GET /`: no resource of the protocol lives there, but it is where a person's browser goes
 * first. With the console on it is a `302` to the console (`console/`, relative, so that a proxy
 * serving the server under a path prefix keeps it); with the console off a `404` that says where
 * the server answers. Either way the body names the server's paths.
 */
import { json } from './responses.js';
import { pathOfUri } from './target.js';
import type { AppResponse, RouteContext } from './types.js';

/** The handler of `/`, for a server whose console is on or off. */
export function root(consoleOn: boolean): (ctx: RouteContext) => AppResponse {
  return (ctx) => {
    const p = ctx.engine.policy;
    const paths = {
      steering: pathOfUri(p.server_uri),
      decisions: pathOfUri(p.decision_uri),
      console: consoleOn ? '/console/' : null,
      verifier: consoleOn ? '/console/verify' : null,
      health: '/healthz',
      metrics: '/metrics',
    };
    if (consoleOn) {
      return json(
        302,
        { message: 'the operator console is at /console/', ...paths },
        { location: 'console/' },
      );
    }
    return json(404, {
      error: 'not_found',
      message: `no page here: this steering server answers steering requests at ${paths.steering} (the console is off: console.enabled)`,
      ...paths,
    });
  };
}
