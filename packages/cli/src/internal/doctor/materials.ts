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

/**
 * The fix of a steering key that lacks an `energy/<label>` the hops are granted: the origin's
 * `keylog add` of the key with its grants and the one it lacks (`add` replaces an active key's
 * grants), as docs/metering.md's grant table says.
 */
function grantFix(warning: string, m: Materials, config: ServerConfig): string {
  const lacks = /^the steering key lacks (energy\/\w+)/.exec(warning)?.[1];
  if (lacks === undefined) return 'see the line above';
  const key = toHex(m.publicKey);
  const held = m.room.entries.get(key)?.may_sign ?? [];
  // A steering key is granted live/steer; the room authority signing as one keeps its live/room.
  const base = held.includes('live/room') ? held : ['live/steer', ...held];
  const grants = [...new Set([...base, lacks])].join(',');
  const log = config.keyLog ?? 'KEYLOG.wkl';
  return `the origin adds it: \`wai-steer keylog add --origin ORIGIN.jwk --log ${log} --key ${key} --may-sign ${grants} --out NEXT.wkl\`, writes NEXT.wkl over ${log} and sends the server SIGHUP`;
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
  for (const warning of m.warnings)
    report.warning('materials', warning, grantFix(warning, m, config));
  return m;
}
