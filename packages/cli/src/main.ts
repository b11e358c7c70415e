#!/usr/bin/env node
// The `wai-steer` bin: runs the command line and exits with its status.
import { main } from './cli.js';

process.exitCode = await main(process.argv.slice(2));
