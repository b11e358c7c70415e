/**
 * What `serve` checks before it starts, with the doctor's own checks: the materials and the
 * policy's URIs refuse the start, every problem named at once (a wrong port and a missing key
 * log are two problems of one start); a key readable by others and a hop the key log does not
 * list are warnings (the server runs, but should not be left so).
 */
import type { ServerConfig } from '@wai-steering/server';
import { hopGrantProblems } from '../grants.js';
import { checkMaterialsOf } from './materials.js';
import { modeProblems, secretFilesOf } from './modes.js';
import { Report } from './report.js';
import { checkUris, URI_FIX } from './uris.js';

/** The problems that refuse the start (one line), and the warnings to print. */
export function preflight(
  path: string,
  config: ServerConfig,
): { problem: string | undefined; warnings: string[] } {
  const report = new Report();
  const m = checkMaterialsOf(config, report);
  const materials = report.findings.filter((f) => f.level === 'problem').map((f) => f.text);
  const uris = checkUris(config, report);
  const all = [...materials, ...uris];
  const problem =
    all.length === 0
      ? undefined
      : `${all.join('; ')}${uris.length === 0 ? '' : `: players and verifiers would ask elsewhere (${URI_FIX})`}`;
  const warnings = modeProblems(secretFilesOf(path, config)).map((p) => `${p.text} (${p.fix})`);
  if (m !== undefined && m.room.keyLog !== undefined) {
    for (const g of hopGrantProblems(m.room, m.policy.pathways)) warnings.push(g.text);
  }
  return { problem, warnings };
}
