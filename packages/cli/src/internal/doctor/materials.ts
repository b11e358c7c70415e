/**
 * The room, key log, policy and steering key, checked as the server checks them at start
 * (`checkMaterials` of the server: each as far as the others allow, every problem at once).
 */
import { checkMaterials, type Materials, type ServerConfig } from '@wai-steering/server';
import { digestOf, toHex } from '@wai-steering/wire';
import type { Report } from './report.js';

/** The fix of a materials problem, by the field it names. */
function fixOf(issue: string, config: ServerConfig): string {
  if (issue.startsWith('room:')) {
    return `name the room descriptor (WRD1) that \`wai-steer room create\` wrote in room: (relative to the config's directory)`;
  }
  if (issue.startsWith('key_log:')) {
    return issue.includes('older than')
      ? issue.slice(issue.lastIndexOf(';') + 1).trim()
      : `put the origin's current key log head (WKL1) at ${config.keyLog ?? 'key_log'}, or set key_log to the file that holds it (relative to the config's directory)`;
  }
  if (issue.startsWith('policy:')) {
    return issue.includes('compile it')
      ? 'compile the policy config and name the WSP1 it writes in policy:'
      : 'compile the policy for this room again (`wai-steer policy compile CONFIG --key KEY --out policy.wsp`), signed by the room authority or a live/steer key, and name it in policy:';
  }
  if (issue.startsWith('signing_key:')) {
    return 'name the steering key\'s JWK file (with "d") in signing_key: the room authority\'s, or a key the key log lists with live/steer, not revoked';
  }
  return 'see the line above';
}

/** The materials, or `undefined` when one does not check (every problem reported). */
export function checkMaterialsOf(config: ServerConfig, report: Report): Materials | undefined {
  const checked = checkMaterials(config);
  for (const issue of checked.issues) report.problem('materials', issue, fixOf(issue, config));
  const m = checked.materials;
  if (m === undefined) return undefined;
  report.ok(
    'materials',
    `room ${toHex(m.room.roomId)} (${JSON.stringify(m.room.room.name)})${m.room.keyLog === undefined ? '' : `, key log seq ${m.room.keyLog.seq}`}, policy ${toHex(digestOf(m.policy))}, steering key ${toHex(m.publicKey)}`,
  );
  for (const warning of m.warnings) {
    report.warning(
      'materials',
      warning,
      "grant the steering key's key log entry that energy/ label (`wai-steer keylog add`), then send the server SIGHUP",
    );
  }
  return m;
}
