/**
 * `wai-steer doctor`: every check of a setup in one run, each in its own file, each reusing the
 * server's and the agent's own checks (the config's reader, `checkMaterials`, the store's open
 * checks, `checkClock`, `checkStoredHead`, the hop agent's config reader and `probe`) rather
 * than repeating them. Order: the config, the materials, the policy's URIs, the hops' configs,
 * the modes of the files that hold secrets, the store and the clock, the key log against the
 * policy's hops, each hop's last record and each pathway's status, the running server.
 */
import { nowUs } from '@wai-steering/config-text';
import type { EvidenceRecord } from '@wai-steering/evidence';
import { checkConfig } from './config.js';
import { checkGrants } from './grants.js';
import { type CheckedHop, checkHop } from './hop.js';
import { checkHops, lastClasses } from './hops.js';
import { checkServer, listenUrl } from './live.js';
import { checkMaterialsOf } from './materials.js';
import { checkModes, type SecretFile, secretFilesOf } from './modes.js';
import { Report } from './report.js';
import { checkStore } from './store.js';
import { checkUris } from './uris.js';

export { Report } from './report.js';

/** What the doctor checks: a server's config, hop agents' configs, or both. */
export interface DoctorOptions {
  readonly config?: string;
  readonly hops: readonly string[];
  /** The room clock, µs (the wall clock by default). */
  readonly now?: () => bigint;
  /** Probe the running server (default true). */
  readonly probe?: boolean;
}

/** Runs every check; the report holds every finding, problems with their fixes. */
export async function runDoctor(o: DoctorOptions): Promise<Report> {
  const report = new Report();
  const now = (o.now ?? nowUs)();
  const config = o.config === undefined ? undefined : checkConfig(o.config, report);
  const m = config === undefined ? undefined : checkMaterialsOf(config, report);
  if (config !== undefined) checkUris(config, report);
  const serverUrls =
    config === undefined
      ? []
      : [...(config.publicUrl ? [config.publicUrl] : []), listenUrl(config)];
  const hops: CheckedHop[] = [];
  for (const path of o.hops) {
    const hop = await checkHop(path, m, serverUrls, report);
    if (hop !== undefined) hops.push(hop);
  }
  const secrets: SecretFile[] =
    config === undefined || o.config === undefined ? [] : secretFilesOf(o.config, config);
  hops.forEach((h, i) => {
    secrets.push({ what: `the hop key of ${o.hops[i]}`, path: h.keyPath });
  });
  checkModes(secrets, report);
  if (config === undefined) return report;
  let records: EvidenceRecord[] | undefined;
  records = await checkStore(config, m, now, report, o.config);
  if (m !== undefined) {
    const classes = records === undefined ? new Map<string, number>() : lastClasses(records);
    for (const h of hops) classes.set(h.key, h.class);
    checkGrants(m, config.keyLog, (k) => classes.get(k), report);
    const noTraffic = new Set(hops.filter((h) => h.noTraffic).map((h) => h.key));
    // The clock now, not at the start: a record posted while the checks ran ends after that.
    const later = (o.now ?? nowUs)();
    if (records !== undefined) checkHops(m.policy, records, later, report, noTraffic);
  }
  if (o.probe !== false) await checkServer(config, report);
  return report;
}
