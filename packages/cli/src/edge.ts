#!/usr/bin/env node
/**
 * `wai-steer` for an edge box: the hop agent's edition of the command line, which the release
 * builds into a single executable (Node's single executable applications) for machines without
 * Node. It holds the commands a CDN node needs (the hop agent, its key, the records it spooled)
 * and none that loads a native addon (the server's stores): a single executable cannot load one.
 */
import { hopRun } from './commands/hop.js';
import { keygen, pubkey } from './commands/keys.js';
import { recordInspect } from './commands/record.js';
import { dispatch } from './internal/dispatch.js';
import { processIo } from './internal/io.js';

const WHERE = 'the npm package (wai-steering-cli-<version>.tgz) or the Debian package';

const edition = {
  commands: [keygen, pubkey, recordInspect, hopRun],
  note: [
    "This is the hop agent's single executable: the whole command line (serve, doctor, verify,",
    `audit, …) is in ${WHERE}.`,
  ],
  lacks: (word: string) =>
    `unknown command "${word}" in the hop agent's single executable (keygen, pubkey, record inspect, hop run): the whole command line is in ${WHERE}`,
};

for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
}

// A single executable's main script is CommonJS (no top-level await).
void dispatch(edition, process.argv.slice(2), processIo()).then((code) => {
  process.exitCode = code;
});
