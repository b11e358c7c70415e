// dash.js 5.2.1 steered by the project's server, in Debian's Chromium, with CMCD on its
// steering requests (`streaming.cmcd.includeInRequests` holds 'steering'), in the query and in
// the CMCD-Request header.

import { describe, expect, it } from 'vitest';
import {
  capture,
  checkClone,
  checkEveryManifestVerifies,
  checkFollowsFirstPathway,
  checkReports,
} from '../harness/checks.js';
import { queryOf } from '../harness/report.js';
import { INITIAL, type Run, runScenario } from '../harness/scenario.js';

function checkDash(run: Run, mode: 'query' | 'headers'): void {
  checkEveryManifestVerifies(run);
  checkReports(run, 'dash');
  for (const e of run.steering) {
    const q = queryOf(e.target);
    // ETSI TS 103 998 clause 7's form: the service locations in one pair of double quotes.
    expect(q.get('_DASH_pathway'), e.target).toMatch(/^"cdn-[abc](,cdn-[abc])*"$/);
    expect(q.has('_DASH_throughput'), e.target).toBe(true);
    const cmcd = mode === 'query' ? q.get('CMCD') : e.headers['cmcd-request'];
    // CMCD version 1 writes `bl=2000`; version 2 (CTA-5004-B) an Inner List, `bl=(2000)`.
    expect(cmcd, e.target).toMatch(/(^|,)bl=\(?[0-9]+/);
    if (mode === 'headers') expect(q.has('CMCD')).toBe(false);
    // The server read the buffer from CMCD `bl`: every decision states one; except where dash.js
    // writes the CMCD query argument with `+` for a space (version 2's Inner Lists), which §4.1
    // does not decode: that value is no Dictionary, so no decision states a buffer
    // (docs/players.md).
    const plus = mode === 'query' && /\+/.test(e.target.split('CMCD=')[1] ?? '');
    expect(e.decision!.report.present & 0b100, e.target).toBe(plus ? 0 : 0b100);
  }
  expect(queryOf(run.steering[0]!.target).get('_DASH_pathway')).toBe(`"${INITIAL}"`);
  // Whether dash.js has a throughput sample to send is its own affair (on a fast machine, in
  // header mode, it sent none in a whole run): `checkReports` holds the server to stating a
  // throughput exactly when the request carries one (`_DASH_throughput`, or CMCD `mtp` × 1000).
  checkFollowsFirstPathway(run);
  checkClone(run);
}

describe('dash.js', () => {
  it('CMCD version 2 in the query: reports pathway, throughput and buffer, follows the first pathway, moves at each reload, reaches the clone, and every manifest verifies', async () => {
    const run = await runScenario('dash.js', { cmcd: 'query', cmcdVersion: 2 });
    capture('dash.js', run);
    checkDash(run, 'query');
  });

  it('CMCD version 1 in the CMCD-Request header (CORS preflight): the same', async () => {
    const run = await runScenario('dash.js', { cmcd: 'headers' });
    capture('dash.js-cmcd-header', run);
    checkDash(run, 'headers');
  });
});
