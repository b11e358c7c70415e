/**
 * The sources a `hop.yaml` names, built: its energy source (`rapl`, `prometheus` with its preset
 * resolved, `model`, `none`) and its traffic source (`nginx` with its routes compiled,
 * `prometheus`, `none`). A source that cannot be built is one line naming the field (an
 * {@link AgentConfigError}).
 */

import { modelSource } from '../energy/model.js';
import { ENERGY_PRESETS, type EnergyUnit, prometheusEnergySource } from '../energy/prometheus.js';
import { raplSource } from '../energy/rapl.js';
import { type EnergySource, unmetered } from '../energy/source.js';
import { nginxLogSource, type Route } from '../traffic/nginx-log.js';
import { prometheusTrafficSource } from '../traffic/prometheus.js';
import { noTraffic, type TrafficSource } from '../traffic/source.js';
import { AgentConfigError, SourceError } from '../types.js';
import { CLASS_OF, type HopConfig } from './schema.js';

/** Resolves a path of the configuration (relative to its file's directory). */
export type ResolvePath = (path: string) => string;

/** The energy source of `energy:`. */
export function energySourceOf(e: HopConfig['energy'], abs: ResolvePath): EnergySource {
  try {
    switch (e.source) {
      case 'rapl':
        return raplSource({
          root: abs(e.root ?? '/sys/class/powercap'),
          ...(e.zones === undefined ? {} : { zones: e.zones }),
        });
      case 'prometheus': {
        const p: { metric: string; unit: EnergyUnit; labels?: Record<string, string> } | undefined =
          e.preset === undefined ? undefined : ENERGY_PRESETS[e.preset];
        const unit = e.unit ?? (e.metric === undefined ? p?.unit : undefined);
        const labels = e.labels ?? (e.metric === undefined ? p?.labels : undefined);
        return prometheusEnergySource({
          url: e.url,
          metric: e.metric ?? p!.metric,
          ...(unit === undefined ? {} : { unit }),
          ...(labels === undefined ? {} : { labels }),
          ...(e.class === undefined ? {} : { class: CLASS_OF[e.class]! }),
        });
      }
      case 'model':
        return modelSource(e);
      case 'none':
        return unmetered();
    }
  } catch (err) {
    if (err instanceof SourceError) throw new AgentConfigError(`energy: ${err.message}`);
    throw err;
  }
}

/** The traffic source of `traffic:`. */
export function trafficSourceOf(t: HopConfig['traffic'], abs: ResolvePath): TrafficSource {
  switch (t.source) {
    case 'nginx': {
      const routes: Route[] = t.routes.map((r, i) => {
        let pattern: RegExp;
        try {
          pattern = new RegExp(r.match);
        } catch (e) {
          throw new AgentConfigError(`traffic.routes.${i}.match: ${(e as Error).message}`);
        }
        return {
          pattern,
          track: r.track,
          kind: r.kind === 'media' ? 1 : 2,
          ...(r.tier === undefined ? {} : { tier: r.tier }),
          ...(r.segment === undefined ? {} : { segmentUs: r.segment }),
        };
      });
      try {
        return nginxLogSource({ path: abs(t.log), routes });
      } catch (e) {
        throw new AgentConfigError(`traffic: ${(e as Error).message}`);
      }
    }
    case 'prometheus':
      return prometheusTrafficSource({
        url: t.url,
        bytes: t.bytes,
        ...(t.sessions === undefined ? {} : { sessions: t.sessions }),
        track: t.track,
        kind: t.kind === 'media' ? 1 : 2,
      });
    case 'none':
      return noTraffic();
  }
}
