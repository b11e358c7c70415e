// Bench: the steering server from the build on a configuration file, in its own process, with
// `WORKERS` worker processes (argv[3], default 1) as `wai-steer serve --workers` runs them.
// argv[4] `own-files` gives each worker an SQLite file of its own (`steering-<worker id>.sqlite`
// beside the configured one): not a deployment (each worker would hold part of the decisions),
// the bench's measure of what sharing one file costs the workers.
import cluster from 'node:cluster';
import { loadConfig, runWorkers, startServer } from '../dist/index.js';

const workers = Number(process.argv[3] ?? '1');
if (cluster.isPrimary && workers > 1) {
  const pool = await runWorkers({ workers });
  process.send?.({ ready: true, url: pool.url, pids: pool.pids() });
  process.on('message', async (m) => {
    if (m?.cmd === 'stop') {
      await pool.close();
      process.exit(0);
    }
  });
} else {
  let config = loadConfig(process.argv[2]);
  if (cluster.isWorker && process.argv[4] === 'own-files') {
    const path = config.store.path.replace(/\.sqlite$/, `-${cluster.worker.id}.sqlite`);
    config = { ...config, store: { ...config.store, path, create: true } };
  }
  const server = await startServer(config, cluster.isWorker ? { worker: process } : {});
  if (cluster.isWorker) {
    process.on('SIGTERM', () => server.close().then(() => process.exit(0)));
  } else {
    process.send?.({ ready: true, url: server.url, pids: [] });
    process.on('message', async (m) => {
      if (m?.cmd === 'stop') {
        await server.close();
        process.exit(0);
      }
    });
  }
}
