// Bench (b): the steering server from the build, on a configuration file, in its own process.
// The message `log-append` switches the decision log's append on or off (the log bench's rounds).
import { loadConfig, startServer } from '../dist/index.js';

const server = await startServer(loadConfig(process.argv[2]));
process.send?.({ ready: true, url: server.url });
process.on('message', async (m) => {
  // The log bench's switch, between its rounds: the decision log's append on or off.
  if (m?.cmd === 'log-append') {
    server.store.logAppend = m.on;
    process.send?.({ logAppend: server.store.logAppend });
  }
  if (m?.cmd === 'sessions') process.send?.({ sessions: server.engine.sessions.size });
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
