// @wai-steering/cli: `main(argv, io)` runs a `wai-steer` command line in-process.
export { main, VERSION } from './cli.js';
export { EXIT } from './internal/errors.js';
export type { Io, Writer } from './internal/io.js';
