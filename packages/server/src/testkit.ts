// @wai-steering/server/testkit: a demo room written into a directory, hops that post signed
// per-hop records to a server every period, and the demo that runs both with the server
// (`wai-steer demo`); for trying the server, its tests and its benches. Not for production.

export { type DemoOptions, type RunningDemo, runDemo } from './demo/run.js';
export {
  type DemoHop,
  type DemoKey,
  type DemoSetup,
  type DemoSetupOptions,
  demoPolicyDigest,
  setupDemo,
} from './demo/setup.js';
export { HopSimulator, type SimulatorOptions } from './demo/simulator.js';
export { SessionTable, type SessionTableOptions } from './sessions.js';
