// Bench (b): the steering server from the build, on a configuration file, in its own process.
// `WAI_BENCH_LOG_APPEND=off`: without the decision log's append (the log bench's baseline).
import { loadConfig, startServer } from '../dist/index.js';

const server = await startServer(
  loadConfig(process.argv[2]),
  process.env.WAI_BENCH_LOG_APPEND === 'off' ? { logAppend: false } : {},
);
process.send?.({ ready: true, url: server.url });
process.on('message', async (m) => {
  if (m?.cmd === 'stats') {
    process.send?.({
      rss: process.memoryUsage().rss,
      sessions: server.engine.sessions.size,
      sessionBytes: server.engine.sessions.bytes,
      store: await server.store.stats(),
      // A decision it served, hex: the log bench commits decisions of its shape.
      sample: Buffer.from(
        (await server.store.listDecisions(0n, 1n << 63n, null, 1)).decisions[0]?.bytes ?? [],
      ).toString('hex'),
    });
  }
  if (m?.cmd === 'stop') {
    await server.close();
    process.exit(0);
  }
});
