/**
 * The key log against the policy's hops (`hopGrantProblems`, the hop agent's own check placed in
 * each pathway): every hop key of the policy listed with `live/hop`, not revoked, and with the
 * `energy/<label>` of the class it states, when that class is known (its agent's energy source
 * from a `--hop` config, or its last record in the store).
 */
import type { Materials } from '@wai-steering/server';
import { CLASS_LABEL } from '@wai-steering/wire';
import { hopGrantProblems } from '../grants.js';
import type { Report } from './report.js';

/** Checks every hop of the policy; `classOf` gives the class a hop key states, when known. */
export function checkGrants(
  m: Materials,
  keyLogPath: string | null,
  classOf: (key: string) => number | undefined,
  report: Report,
): void {
  if (m.room.keyLog === undefined) {
    report.note('key log', 'the room names no origin: only its authority signs records');
    return;
  }
  const problems = hopGrantProblems(m.room, m.policy.pathways, classOf);
  for (const p of problems) {
    const cls = classOf(p.key);
    const grants = `live/hop${cls === undefined || cls === 0 ? '' : `,energy/${CLASS_LABEL[cls]}`}`;
    report.problem(
      'key log',
      p.text,
      `the origin adds it: \`wai-steer keylog add --origin ORIGIN.jwk --log ${keyLogPath ?? 'KEYLOG'} --key ${p.key} --may-sign ${grants} --out NEXT.wkl\`, writes NEXT.wkl over ${keyLogPath ?? 'the key log'} and sends the server SIGHUP`,
    );
  }
  const hops = m.policy.pathways.reduce((n, p) => n + p.hops.length, 0);
  if (problems.length === 0) {
    report.ok(
      'key log',
      `every hop of the policy (${hops}) is listed with live/hop and the energy/ label of the class it states, where known`,
    );
  }
}
