// shaka-player 5.2.12 on the DASH MPD, steered by the project's server, in Debian's Chromium
// (issue 7).

import { describe, expect, it } from 'vitest';
import {
  capture,
  checkClone,
  checkEveryManifestVerifies,
  checkFollowsFirstPathway,
  checkReports,
} from '../harness/checks.js';
import { queryOf } from '../harness/report.js';
import { runScenario } from '../harness/scenario.js';

describe('shaka-player', () => {
  it('sends no report on its first request, then its pathway and throughput; follows the first pathway, moves at each reload, reaches the clone, and every manifest verifies', async () => {
    const run = await runScenario('shaka-player');
    capture('shaka-player', run);

    checkEveryManifestVerifies(run);
    checkReports(run, 'dash');
    // Its first request is the MPD's URI as written: no parameters of its own (docs/players.md).
    const first = run.steering[0]!;
    expect([...queryOf(first.target).keys()]).toEqual(['room', 'v']);
    expect(first.decision!.report.present).toBe(0);
    // Then one pathway, unquoted, and one throughput.
    for (const e of run.steering.slice(1)) {
      const q = queryOf(e.target);
      expect(q.get('_DASH_pathway'), e.target).toMatch(/^cdn-[abc]$/);
      expect(q.get('_DASH_throughput'), e.target).toMatch(/^[0-9]+$/);
      expect(e.decision!.report.present, e.target).toBe(0b011);
    }
    checkFollowsFirstPathway(run);
    checkClone(run);
  });
});
