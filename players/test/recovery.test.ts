// The server's own answers, with the real server (docs/players.md, "What the server answers, and
// what each player does with it"): each player recovers after a client over its budget
// (`over_budget`), the server's restart, a store outage (the store's file removed:
// `store_unavailable`, then a restart) and a policy rotation (`POST /admin/reload`): it is
// answered 200 again, the manifests verify, and it moves to the pathway they put first. One run
// steers every player on every protocol at once; a test per column reads its part.

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  PHASE_TITLES,
  type PhaseName,
  RECOVERY_COLUMNS,
  type RecoveryRun,
  recoveryKey,
  runRecovery,
} from '../harness/recovery.js';

const CAPTURED_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'captured');

let run: RecoveryRun;

beforeAll(async () => {
  run = await runRecovery();
  mkdirSync(CAPTURED_DIR, { recursive: true });
  writeFileSync(
    join(CAPTURED_DIR, 'recovery.json'),
    `${JSON.stringify(
      {
        titles: PHASE_TITLES,
        ...run,
        // The players' own events but their segments (the pathways' logs hold those).
        events: Object.fromEntries(
          Object.entries(run.events).map(([k, v]) => [k, v.filter((e) => e.type !== 'fragment')]),
        ),
      },
      null,
      2,
    )}\n`,
  );
  process.stdout.write(
    `\n[recovery] ${run.ms} ms\n${run.results
      .map(
        (r) =>
          `  ${r.phase} ${r.column}: declined ${JSON.stringify(r.declined)}, answered after ${r.answeredMs} ms, on ${r.target} after ${r.followedMs} ms, verified ${r.verified}${r.why === null ? '' : ` (${r.why})`}`,
      )
      .join('\n')}\n`,
  );
  // A hang guard: the run ends on what it waits for, each wait bounded by its own guard.
}, 1_200_000);

const PHASES: readonly PhaseName[] = ['over-budget', 'restart', 'store-outage', 'rotation'];

describe.each(RECOVERY_COLUMNS.map((c) => ({ ...c, key: recoveryKey(c) })))(
  '$key',
  ({ key, content }) => {
    it('recovers after each answer of the server: over budget, a restart, a store outage, a policy rotation', () => {
      const mine = run.results.filter((r) => r.column === key);
      expect(mine.map((r) => r.phase)).toEqual(PHASES);
      for (const r of mine) {
        const seen = JSON.stringify(r);
        // It was answered 200 again, with a manifest that verifies, and followed it: it moved,
        // from the pathway the phase before put first.
        expect(r.answeredMs, seen).not.toBeNull();
        expect(r.followedMs, seen).not.toBeNull();
        expect(r.from, seen).not.toBe(r.target);
        expect(r.verified, seen).toBe(true);
      }
      const by = (p: PhaseName) => mine.find((r) => r.phase === p)!;
      // The budget and the store outage were answered as the server answers them, to this player
      // too: with the status that makes its protocol's players come back (503 to HLS, 429 to DASH;
      // a 429 ends hls.js's steering, a 503 to a first request dash.js's).
      const status = content === 'hls' ? 503 : 429;
      expect(by('over-budget').declined, JSON.stringify(by('over-budget'))).toContain(
        `${status} over_budget`,
      );
      expect(by('store-outage').declined, JSON.stringify(by('store-outage'))).toContain(
        `${status} store_unavailable`,
      );
      const other = content === 'hls' ? '429' : '503';
      for (const r of mine) expect(r.declined.filter((d) => d.startsWith(other))).toEqual([]);
      // After the rotation, its decisions name the new policy.
      expect(by('rotation').policy).toBe(run.rotated);
      expect(run.events[key]!.filter((e) => e.type === 'player-error' && e.fatal === true)).toEqual(
        [],
      );
    });
  },
);
