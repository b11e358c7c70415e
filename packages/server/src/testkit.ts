// @wai-steering/server/testkit: a demo room written into a directory, hops that post signed
// per-hop records to a server every period, a site that reports its capacity, and a throwaway
// PostgreSQL cluster; for trying the server (`wai-steer demo` runs them), its tests and its
// benches. Not for production.

export { consoleDistDir } from './console/assets.js';
export { type PgCluster, type PgClusterOptions, pgBinDir, startPostgres } from './demo/postgres.js';
export {
  BYTES_NOISE,
  DEMO_POWER,
  ENERGY_NOISE,
  type HopPower,
  hopEnergyUj,
  OTHER_PER_MEDIA,
  SESSION_BPS,
  SHIELD_SHARE,
} from './demo/power.js';
export {
  type DemoHop,
  type DemoKey,
  type DemoSetup,
  type DemoSetupOptions,
  demoPolicyDigest,
  setupDemo,
} from './demo/setup.js';
export { demoAudience, HopSimulator, type SimulatorOptions } from './demo/simulator.js';
export { type SiteOptions, SiteSimulator } from './demo/site.js';
export { type RebuildOptions, type Rebuilt, rebuildSessions } from './engine/rebuild.js';
export { SessionTable, type SessionTableOptions } from './sessions.js';
