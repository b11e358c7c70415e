// @wai-steering/agent: the hop agent. It reads a hop's energy and traffic, cuts a signed per-hop
// record (WMH1, companion C5) of every period of the room clock (§5.1), spools it and delivers it
// to every steering server, never lost.

export { HopAgent, type HopAgentOptions } from './agent/agent.js';
export type { CutRecord } from './agent/record.js';
export { type CapacityOptions, CapacityReporter } from './capacity.js';
export { createHopAgent, type HopMaterials, readHopMaterials } from './config/build.js';
export {
  loadHopConfig,
  parseHopConfig,
  type ReadHopConfig,
  readHopConfig,
  readHopConfigFile,
} from './config/read.js';
export { HOP_CONFIG_ALIASES, type HopConfig, hopConfigSchema } from './config/schema.js';
export {
  Courier,
  type CourierOptions,
  httpTransport,
  type PostResult,
  type Transport,
} from './delivery.js';
export { type ModelOptions, modelSource } from './energy/model.js';
export {
  type CounterClaim,
  checkEnergyCounter,
  counterClaim,
  ENERGY_PRESETS,
  type EnergyPreset,
  type EnergyUnit,
  type PrometheusEnergyOptions,
  prometheusEnergySource,
  unitOfMetric,
} from './energy/prometheus.js';
export { type RaplOptions, raplSource, raplZones } from './energy/rapl.js';
export {
  type CounterEnergySource,
  type CounterReading,
  type EnergySource,
  type SpanEnergySource,
  type UnmeteredSource,
  unmetered,
} from './energy/source.js';
export { metricsText, serveAgentHttp } from './http.js';
export { type Decimal, floorScaled, parseDecimal } from './internal/decimal.js';
export { parseExposition, type Sample } from './internal/exposition.js';
export { checkHopKey, type HopKey, hopKeyFromJwk, openHopRoom } from './keys.js';
export { type SimulatedOptions, SimulatedSource } from './simulated.js';
export {
  type SimulatedHopSpec,
  SimulatedHops,
  type SimulatedHopsOptions,
} from './simulated-hops.js';
export type { Cursor } from './spool/cursor.js';
export { SpoolWriteError, serverId, spoolProblem } from './spool/directories.js';
export type { SpooledRecord } from './spool/record-file.js';
export { Spool, type SpoolOptions } from './spool/spool.js';
export {
  type NginxLogOptions,
  NginxLogSource,
  nginxLogSource,
  type Route,
} from './traffic/nginx-log.js';
export { type PrometheusTrafficOptions, prometheusTrafficSource } from './traffic/prometheus.js';
export { noTraffic, type TrafficSource } from './traffic/source.js';
export {
  AgentConfigError,
  bytesOut,
  emptyTraffic,
  SourceError,
  type Span,
  type Traffic,
} from './types.js';
