/**
 * A hop agent's config (`hop.yaml`), checked as the agent checks it at start (`readHopConfigFile`,
 * `createHopAgent`, `probe`: every field, its files, its key against the key log, its energy
 * counter read once, its traffic source opened), then against the server it should feed: the
 * same room, its key on a pathway of the policy, a period the policy's, an energy source (an
 * unmetered hop gives its pathway no figure) and, on an edge hop, a traffic source (an edge hop
 * that states no bytes leaves its pathway empty), and this server among its servers.
 */
import { isAbsolute, resolve } from 'node:path';
import {
  AgentConfigError,
  createHopAgent,
  type HopConfig,
  readHopConfigFile,
  readHopMaterials,
} from '@wai-steering/agent';
import { formatDuration } from '@wai-steering/config-text';
import type { Materials } from '@wai-steering/server';
import { bytesEqual, toHex } from '@wai-steering/wire';
import type { Report } from './report.js';

/** What the rest of the doctor needs of a hop that read: its key, the class it states. */
export interface CheckedHop {
  readonly key: string;
  readonly class: number;
  readonly keyPath: string;
  /** It has no traffic source (`traffic: none`): as an edge hop, its pathway is empty. */
  readonly noTraffic: boolean;
}

function fixOfProbe(problem: string): string {
  if (/key log|authority/.test(problem)) {
    return 'the origin grants the hop\'s key what it lacks (`wai-steer keylog add --origin ORIGIN.jwk --log KEYLOG --key HOPKEY --may-sign live/hop,energy/CLASS --out NEXT.wkl`; docs/metering.md, "What the key log must grant")';
  }
  if (problem.startsWith('energy source')) {
    return "make the counter readable by the agent's user (RAPL's energy_uj is root's on Linux 5.10 and later), or correct the exporter's URL";
  }
  if (problem.startsWith('traffic source')) {
    return 'point traffic.log at the access log nginx writes in the wai_steering format (docs/metering.md, "nginx: the access log"), readable by the agent\'s user';
  }
  return 'see the line above';
}

/** Checks one hop config; what the key log check needs of it, or `undefined` when it does not read. */
export async function checkHop(
  path: string,
  m: Materials | undefined,
  serverUrls: readonly string[],
  report: Report,
): Promise<CheckedHop | undefined> {
  const check = `hop ${path}`;
  let config: HopConfig;
  try {
    const read = readHopConfigFile(path);
    for (const w of read.warnings) report.warning(check, w, 'rename the field as the line says');
    config = read.config;
  } catch (e) {
    if (!(e instanceof AgentConfigError)) throw e;
    const prefix = `hop config ${path}: `;
    for (const issue of e.issues) {
      report.problem(
        check,
        issue.startsWith(prefix) ? issue.slice(prefix.length) : issue,
        `edit ${path} (its fields: docs/metering.md, "The config")`,
      );
    }
    return undefined;
  }
  let agent: ReturnType<typeof createHopAgent>;
  let hm: ReturnType<typeof readHopMaterials>;
  try {
    hm = readHopMaterials(config);
    agent = createHopAgent(config, { dryRun: true, log: () => undefined });
  } catch (e) {
    if (!(e instanceof AgentConfigError)) throw e;
    report.problem(check, e.message, `correct the file ${path} names, relative to its directory`);
    return undefined;
  }
  const problems = await agent.probe();
  for (const p of problems) report.problem(check, p, fixOfProbe(p));
  const key = toHex(hm.key.publicKey);
  const sources = agent.sources;
  const keyPath = isAbsolute(config.key) ? config.key : resolve(config.baseDir, config.key);
  const found: string[] = [];
  if (m !== undefined) {
    const roomId = hm.room instanceof Uint8Array ? hm.room : hm.room.roomId;
    if (!bytesEqual(roomId, m.room.roomId)) {
      report.problem(
        check,
        `its room is ${toHex(roomId)}, the server's ${toHex(m.room.roomId)}: every record it signs is refused (wrong_room)`,
        "give it the server's room descriptor and key log (room:, key_log:)",
      );
    }
    let at: { id: string; place: number } | undefined;
    for (const p of m.policy.pathways) {
      const h = p.hops.find((x) => bytesEqual(x.key, hm.key.publicKey));
      if (h !== undefined) at = { id: p.id, place: h.place };
    }
    if (at === undefined) {
      report.problem(
        check,
        `its key ${key} is on no pathway of the policy: its records are taken, and never used`,
        "add the hop to its pathway's hops in the policy config (key: its public key, `wai-steer pubkey`), compile the policy and send the server SIGHUP; or give the agent the key the policy names",
      );
    } else {
      found.push(`${at.place === 2 ? 'interior' : 'edge'} hop of ${at.id}`);
      if (sources.energy.kind === 'none') {
        report.problem(
          check,
          `energy: none: every record is the unmetered marker, so ${at.id} can never have a figure (an unmetered hop is not a hop of zero joules)`,
          'give it an energy source: rapl, prometheus (node_exporter, Kepler, Scaphandre) or model (docs/metering.md, "Energy sources")',
        );
      }
      if (at.place === 1 && sources.traffic.describe === 'none') {
        report.problem(
          check,
          `traffic: none on an edge hop: its records state no ${m.policy.basis === 1 ? 'bytes' : 'delivery'}, so ${at.id} is empty (D = 0) and has no figure`,
          'give it a traffic source: nginx (its access log, in the wai_steering format) or prometheus byte counters (docs/metering.md, "Traffic sources")',
        );
      }
    }
    if (hm.period !== m.policy.period_us) {
      report.problem(
        check,
        `it cuts records every ${formatDuration(hm.period)}, the policy's period P is ${formatDuration(m.policy.period_us)}: its records never tile a window`,
        "give it the server's policy (policy:), or period: the policy's P",
      );
    }
  }
  const origins = new Set(serverUrls.flatMap((u) => (URL.canParse(u) ? [new URL(u).origin] : [])));
  const feeds = config.servers.some((s) => URL.canParse(s) && origins.has(new URL(s).origin));
  if (origins.size > 0 && !feeds) {
    report.warning(
      check,
      `its servers (${config.servers.join(', ')}) do not include this server (${[...origins].join(' or ')})`,
      'add the URL players reach the server at (public_url, or its listen address) to servers:',
    );
  }
  if (problems.length === 0) {
    report.ok(
      check,
      `key ${key}${found.length === 0 ? '' : `, the ${found.join(', ')}`}; energy ${sources.energy.describe}; traffic ${sources.traffic.describe}`,
    );
  }
  return {
    key,
    class: sources.energy.class,
    keyPath,
    noTraffic: sources.traffic.describe === 'none',
  };
}
