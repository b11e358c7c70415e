// The checks every player's run must pass, and the record of what it sent (players/captured/).

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PRESENT, toHex } from '@wai-steering/wire';
import { expect } from 'vitest';
import { expectedReport, queryOf, type Report } from './report.js';
import {
  GRACE_MS,
  PATHWAYS,
  PHASES,
  type Run,
  SETTLE_SEGMENTS,
  type SteeringExchange,
} from './scenario.js';

/** The report a decision states (§7.1), as §6 reads it. */
export function statedReport(e: SteeringExchange): Report {
  const r = e.decision!.report;
  return {
    pathway: (r.present & PRESENT.pathway) !== 0 ? r.pathway : null,
    throughput: (r.present & PRESENT.throughput) !== 0 ? r.throughput : null,
    buffer: (r.present & PRESENT.buffer) !== 0 ? r.buffer : null,
  };
}

export interface Epoch {
  readonly first: string;
  readonly from: number;
  readonly to: number;
}

/** The spans during which the manifests a player received put one pathway first. */
export function epochs(run: Run): Epoch[] {
  const out: Epoch[] = [];
  for (const e of run.steering) {
    if (e.first === null) continue;
    const last = out.at(-1);
    if (last !== undefined && last.first === e.first) continue;
    if (last !== undefined) out[out.length - 1] = { ...last, to: e.at };
    out.push({ first: e.first, from: e.at, to: Number.POSITIVE_INFINITY });
  }
  return out;
}

/** Every manifest served was a 200 with the steering media type and verifies (§9.1). */
export function checkEveryManifestVerifies(run: Run): void {
  expect(run.steering.length).toBeGreaterThanOrEqual(PHASES.length + 1);
  for (const e of run.steering) {
    expect(e.status, `${e.target}: ${e.body.toString()}`).toBe(200);
    expect(e.responseHeaders['content-type']).toMatch(/^application\/vnd\.apple\.steering-list/);
    expect(e.responseHeaders['access-control-allow-origin']).toBe('*');
    expect(e.outcome, e.target).toMatchObject({ outcome: 'accept' });
    if (e.outcome?.outcome === 'accept') {
      expect(e.outcome.manifest).toBe(e.body.toString('utf8'));
      expect(e.outcome.priority[0]).toBe(e.first);
    }
  }
  expect(run.hopFailures).toEqual([]);
}

/** The decision states what §4 reads from the raw request, and the session carries over. */
export function checkReports(run: Run, protocol: 'hls' | 'dash'): void {
  let session: string | undefined;
  for (const [i, e] of run.steering.entries()) {
    const expected = expectedReport(e.target, e.headers, run.ids);
    const stated = statedReport(e);
    expect(stated, `report of ${e.target}`).toEqual(expected.report);
    expect(e.decision!.protocol, e.target).toBe(
      // §7.1: 1 HLS, 2 DASH; a request with no `_DASH_` parameter reads as HLS (§4).
      expected.protocol === 'dash' ? 2 : 1,
    );
    if (i > 0 && protocol === 'dash') expect(expected.protocol).toBe('dash');
    const sent = queryOf(e.target).get('wai_session');
    const decided = toHex(e.decision!.session);
    if (i === 0) {
      expect(sent).toBeUndefined();
      session = decided;
    } else {
      // The player follows the manifest's RELOAD-URI, which carries its session (§8.1).
      expect(sent, e.target).toBe(session);
      expect(decided).toBe(session);
    }
  }
}

/**
 * The player fetched its segments from the pathway its manifests put first: in each span, every
 * segment requested from GRACE_MS after the manifest on is from that pathway; and it moved to each
 * phase's first pathway in the order of the phases, each at a reload.
 */
export function checkFollowsFirstPathway(run: Run): Epoch[] {
  const spans = epochs(run);
  expect(spans.map((s) => s.first)).toEqual(PHASES.map((p) => p.first));
  for (const span of spans) {
    const inSpan = run.segments.filter((s) => s.at >= span.from + GRACE_MS && s.at < span.to);
    expect(inSpan.length, `segments while ${span.first} was first`).toBeGreaterThanOrEqual(
      SETTLE_SEGMENTS,
    );
    expect(
      inSpan.filter((s) => s.pathway !== span.first).map((s) => `${s.pathway} ${s.path}`),
      `segments from another pathway while ${span.first} was first`,
    ).toEqual([]);
  }
  // Each move happened at a reload after the evidence changed, not before it.
  for (const [i, span] of spans.entries()) {
    if (i === 0) continue;
    expect(span.from).toBeGreaterThan(run.phaseStarts[i]!);
  }
  return spans;
}

/** The clone was reached by HOST replacement: its host served segments, under its own ID. */
export function checkClone(run: Run): void {
  const clone = PATHWAYS.find((p) => 'cloneOf' in p)!;
  const fromClone = run.segments.filter((s) => s.pathway === clone.id);
  expect(fromClone.length).toBeGreaterThanOrEqual(2);
  expect(fromClone.every((s) => s.host === clone.host)).toBe(true);
  // The player then reports the clone as its pathway (§4: its index in the policy).
  const cloneIndex = run.ids.indexOf(clone.id);
  expect(run.steering.some((e) => statedReport(e).pathway === cloneIndex)).toBe(true);
}

const here = dirname(fileURLToPath(import.meta.url));
export const CAPTURED_DIR = join(here, '..', 'captured');

function exchangeJson(e: SteeringExchange) {
  const r = statedReport(e);
  return {
    target: e.target,
    headers: e.headers,
    report: {
      pathway: r.pathway === null ? null : PATHWAYS[r.pathway]!.id,
      throughput: r.throughput?.toString() ?? null,
      buffer: r.buffer?.toString() ?? null,
    },
    manifest: e.body.toString('utf8'),
    outcome: e.outcome?.outcome,
  };
}

/** Writes players/captured/<name>.json and prints the first request and the one after a move. */
export function capture(name: string, run: Run): void {
  const spans = epochs(run);
  const version = run.events.find((e) => e.type === 'version');
  const afterMove = run.steering.filter((e) => e.at > (spans[1]?.from ?? 0))[0];
  const doc = {
    player: run.player,
    version: version?.version ?? null,
    runMs: run.ms,
    steeringRequests: run.steering.length,
    first: exchangeJson(run.steering[0]!),
    afterFirstMove: afterMove === undefined ? null : exchangeJson(afterMove),
    last: exchangeJson(run.steering.at(-1)!),
    moves: spans.map((s) => ({ first: s.first, atMs: Math.round(s.from - run.phaseStarts[0]!) })),
    segments: run.segments.map((s) => ({
      atMs: Math.round(s.at - run.phaseStarts[0]!),
      pathway: s.pathway,
      url: `http://${s.host}${s.path}`,
    })),
    targets: run.steering.map((e) => ({
      atMs: Math.round(e.at - run.phaseStarts[0]!),
      target: e.target,
      cmcdRequest: e.headers['cmcd-request'] ?? null,
      first: e.first,
    })),
  };
  mkdirSync(CAPTURED_DIR, { recursive: true });
  writeFileSync(join(CAPTURED_DIR, `${name}.json`), `${JSON.stringify(doc, null, 2)}\n`);
  const show = (label: string, e: SteeringExchange | undefined) => {
    if (e === undefined) return '';
    const cmcd = e.headers['cmcd-request'];
    return `  ${label}: GET ${e.target}${cmcd === undefined ? '' : `\n    CMCD-Request: ${cmcd}`}\n    -> ${JSON.stringify(exchangeJson(e).report)} first ${e.first}\n`;
  };
  process.stdout.write(
    `\n[${name}] ${doc.version} — ${run.steering.length} steering requests, moves ${spans
      .map((s) => s.first)
      .join(' -> ')}, ${run.segments.length} segments, ${run.ms} ms\n` +
      show('first request', run.steering[0]) +
      show('after the first move', afterMove) +
      show('last request', run.steering.at(-1)),
  );
}
