#!/usr/bin/env node
/**
 * `pnpm demo`: sets up a demo room in `.demo/` (or `--dir`), starts the steering server on
 * 127.0.0.1:8080 (or `--host`, `--port`) with simulated hops posting signed records every period,
 * and prints the HLS tag, the DASH element and a `curl` line to try.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError } from './config.js';
import { runDemo } from './demo/run.js';

const USAGE = `usage: node dist/demo.js [--dir DIR] [--host HOST] [--port PORT] [--period-ms MS] [--verbose]

Sets up a demo room in DIR (default .demo; its previous demo files are replaced), starts the
steering server on HOST:PORT (default 127.0.0.1:8080) on the embedded store, and simulated hops
that post signed per-hop records every period. Ctrl-C stops it.`;

async function main(): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      options: {
        dir: { type: 'string', default: '.demo' },
        host: { type: 'string', default: '127.0.0.1' },
        port: { type: 'string', default: '8080' },
        'period-ms': { type: 'string', default: '2000' },
        verbose: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
    }));
  } catch (e) {
    console.error(`demo: ${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help === true) {
    console.log(USAGE);
    return 0;
  }
  const port = Number(values.port);
  const periodMs = Number(values['period-ms']);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    console.error('demo: --port: expected an integer from 1 to 65535');
    return 2;
  }
  if (!Number.isInteger(periodMs) || periodMs < 100) {
    console.error('demo: --period-ms: expected an integer of at least 100');
    return 2;
  }
  const dir = resolve(String(values.dir));
  const verbose = values.verbose === true;
  let demo: Awaited<ReturnType<typeof runDemo>>;
  try {
    demo = await runDemo({
      dir,
      host: String(values.host),
      port,
      periodMs,
      onPeriod: (end, refused) => {
        for (const r of refused) console.error(`demo: a record was refused: ${r}`);
        if (verbose) console.error(`demo: hops posted the period ending at ${end} µs`);
      },
    });
  } catch (e) {
    console.error(`demo: ${e instanceof ConfigError ? e.message : (e as Error).stack}`);
    return 1;
  }
  const p = demo.setup.policy;
  console.log(`Steering server for the demo room, listening on ${demo.server.url}`);
  console.log(`  files (keys, room, key log, policy, config, store): ${dir}`);
  console.log(
    `  pathways: ${p.pathways.map((x) => x.id).join(', ')}; P = ${Number(p.period_us) / 1e6} s, W = ${Number(p.window_us) / 1e6} s, L = ${Number(p.lag_us) / 1e6} s`,
  );
  for (const w of demo.server.warnings) console.log(`  warning: ${w}`);
  console.log('');
  console.log('HLS multivariant playlist tag:');
  console.log(demo.hlsTag);
  console.log('');
  console.log('DASH MPD element:');
  console.log(demo.dashElement);
  console.log('');
  console.log('Try:');
  console.log(`curl '${demo.steeringUrl}'`);
  if (demo.server.consoleUrl !== null) {
    console.log(`Console:  ${demo.server.consoleUrl}`);
    console.log(`Verifier: ${demo.server.verifyUrl}`);
  }
  console.log('');
  console.log(
    'Each manifest names its signed decision (science.transaction.wai-decision); every input a verifier needs is served by digest. Ctrl-C to stop.',
  );
  await new Promise<void>((done) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      console.log('\nstopping…');
      demo.close().then(done, done);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    console.error(e);
    process.exitCode = 1;
  },
);
