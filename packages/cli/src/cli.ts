/**
 * `wai-steer`: the operator's command line. `main` runs one command line and returns its exit
 * status; it never throws. A user error is one line on stderr (`wai-steer: <what is wrong>`);
 * an internal error is one line too, with a request to report it.
 */
import { COMMANDS } from './commands/index.js';
import { dispatch } from './internal/dispatch.js';
import { type Io, processIo } from './internal/io.js';

export { VERSION } from './internal/dispatch.js';

/** Runs one command line; returns the exit status. Never throws. */
export async function main(argv: readonly string[], io: Io = processIo()): Promise<number> {
  return dispatch({ commands: COMMANDS }, argv, io);
}
