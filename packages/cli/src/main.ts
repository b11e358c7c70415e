#!/usr/bin/env node
// The `wai-steer` bin: runs the command line and exits with its status.
import { main } from './cli.js';

// A reader that stops early (`wai-steer policy inspect p.wsp | head -1`) closes the pipe: stop
// quietly, as other command-line tools do, rather than crash on the write's EPIPE.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
}

process.exitCode = await main(process.argv.slice(2));
