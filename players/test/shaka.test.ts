// shaka-player 5.2.12 steered by the project's server, in Debian's Chromium, on the DASH
// MPD and on the HLS multivariant playlist.

import { describe, expect, it } from 'vitest';
import {
  capture,
  checkClone,
  checkEveryManifestVerifies,
  checkFollowsFirstPathway,
  checkReports,
} from '../harness/checks.js';
import { queryOf } from '../harness/report.js';
import { type Run, runScenario } from '../harness/scenario.js';

function checkShaka(run: Run, content: 'hls' | 'dash'): void {
  checkEveryManifestVerifies(run);
  checkReports(run, content);
  // Its first request is the URI of the MPD or the tag as written: no parameters of its own
  // (docs/players.md), so the first decision has no report.
  const first = run.steering[0]!;
  expect([...queryOf(first.target).keys()]).toEqual(['room', 'v']);
  expect(first.decision!.report.present).toBe(0);
  // Then one pathway, unquoted, and one throughput; never CMCD.
  const prefix = content === 'dash' ? '_DASH_' : '_HLS_';
  for (const e of run.steering.slice(1)) {
    const q = queryOf(e.target);
    expect(q.get(`${prefix}pathway`), e.target).toMatch(/^cdn-[abc]$/);
    expect(q.get(`${prefix}throughput`), e.target).toMatch(/^[0-9]+$/);
    expect(q.has('CMCD') || e.headers['cmcd-request'] !== undefined).toBe(false);
    expect(e.decision!.report.present, e.target).toBe(0b011);
  }
  checkFollowsFirstPathway(run);
  checkClone(run);
}

describe('shaka-player', () => {
  it('DASH: no report on its first request, then its pathway and throughput; follows the first pathway, moves at each reload, reaches the clone, and every manifest verifies', async () => {
    const run = await runScenario('shaka-player', { content: 'dash' });
    capture('shaka-player', run);
    checkShaka(run, 'dash');
  });

  it('HLS: the same on the multivariant playlist', async () => {
    const run = await runScenario('shaka-player', { content: 'hls' });
    capture('shaka-player-hls', run);
    checkShaka(run, 'hls');
  });
});
