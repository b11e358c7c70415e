// hls.js 1.7.4 steered by the project's server, in Debian's Chromium.

import { describe, expect, it } from 'vitest';
import {
  capture,
  checkClone,
  checkEveryManifestVerifies,
  checkFollowsFirstPathway,
  checkReports,
} from '../harness/checks.js';
import { queryOf } from '../harness/report.js';
import { INITIAL, runScenario } from '../harness/scenario.js';

describe('hls.js', () => {
  it('reports its pathway and throughput, follows the first pathway, moves at each reload, reaches the clone, and every manifest verifies', async () => {
    const run = await runScenario('hls.js');
    capture('hls.js', run);

    checkEveryManifestVerifies(run);
    checkReports(run, 'hls');
    // rfc8216bis §7.4's parameters on every request: the pathway it plays (unquoted, see
    // docs/players.md) and a throughput in bit/s.
    for (const e of run.steering) {
      const q = queryOf(e.target);
      expect(q.get('_HLS_pathway'), e.target).toMatch(/^cdn-[abc]$/);
      expect(q.get('_HLS_throughput'), e.target).toMatch(/^[0-9]+$/);
      expect(e.decision!.report.present & 0b011).toBe(0b011);
    }
    // The first request names the tag's PATHWAY-ID.
    expect(queryOf(run.steering[0]!.target).get('_HLS_pathway')).toBe(INITIAL);

    checkFollowsFirstPathway(run);
    checkClone(run);
    // hls.js builds the clone's variant from cdn-b's with HOST replaced: its media playlist too.
    expect(run.served.some((s) => s.pathway === 'cdn-c' && s.path === '/hls/media.m3u8')).toBe(
      true,
    );
    expect(run.events.filter((e) => e.type === 'player-error' && e.fatal === true)).toEqual([]);
  });
});
