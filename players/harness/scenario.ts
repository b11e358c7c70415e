// One run of one player, end to end: the pathways' servers, the steering server with its
// simulated hops behind the capture proxy, the content descriptions, the page and Chromium. The
// evidence goes through three phases, each making another pathway the cheapest: first the
// content description's initial pathway `cdn-b` (so that the first manifest agrees with the tag,
// as §8.2 asks of an operator: hls.js can stall when it does not, see docs/players.md), then the
// other base pathway `cdn-a`, then the clone `cdn-c` (cdn-b's content through another host).
// The run waits for the player to settle on each phase's first pathway, then stops every process
// it started.

import type { Outcome } from '@wai-steering/verifier';
import type { Decision, PolicyFields } from '@wai-steering/wire';
import { launch } from './browser.js';
import { type Exchange, startCaptureProxy } from './capture.js';
import { mpd, multivariantPlaylist } from './documents.js';
import { ensureMedia } from './media.js';
import { type PlayerName, startPageServer } from './page.js';
import { type ServedRequest, startPathways } from './pathways.js';
import { type PageEvent, pageEvents, startPlayer } from './players.js';
import { startSteering } from './steering.js';
import { NetworkVerifier } from './verify.js';
import { Wake } from './wake.js';

/** The pathways: two of the content description and a clone of the second on a third host. */
export const PATHWAYS = [
  { id: 'cdn-a', host: '127.0.0.11' },
  { id: 'cdn-b', host: '127.0.0.12' },
  { id: 'cdn-c', host: '127.0.0.13', cloneOf: 'cdn-b' },
] as const;
/** The content description's initial pathway (the HLS tag's PATHWAY-ID, the DASH default). */
export const INITIAL = 'cdn-b';

export interface Phase {
  /** Microjoules per period of each pathway's hop, for the same delivery. */
  readonly figures: Readonly<Record<string, bigint>>;
  /** The pathway the rule then puts first: the cheapest, by far more than the 5 % hysteresis. */
  readonly first: string;
}

export const PHASES: readonly Phase[] = [
  { figures: { 'cdn-a': 300_000n, 'cdn-b': 100_000n, 'cdn-c': 400_000n }, first: 'cdn-b' },
  { figures: { 'cdn-a': 50_000n, 'cdn-b': 400_000n, 'cdn-c': 400_000n }, first: 'cdn-a' },
  { figures: { 'cdn-a': 400_000n, 'cdn-b': 400_000n, 'cdn-c': 50_000n }, first: 'cdn-c' },
];

/** A segment requested this long after a manifest arrived was chosen under it. */
export const GRACE_MS = 1000;
/** Segments to see from a phase's first pathway, from GRACE_MS on, before the run moves on. */
export const SETTLE_SEGMENTS = 2;
/**
 * A guard against a hang alone: a phase ends when the player settled, which each request the
 * proxy or the pathways see is checked for; a busy machine takes longer, never this long.
 */
const PHASE_GUARD_MS = 120_000;

/** A steering request as the server received it, with what it answered and its verification. */
export interface SteeringExchange extends Exchange {
  /** The manifest as parsed (200 answers). */
  readonly manifest: Record<string, unknown> | null;
  /** Its first pathway. */
  readonly first: string | null;
  readonly outcome: Outcome | null;
  readonly decision: Decision | null;
}

export interface Run {
  readonly player: PlayerName;
  readonly policy: PolicyFields;
  readonly ids: readonly string[];
  /** The steering requests (GET on the policy's steering paths), in order. */
  readonly steering: readonly SteeringExchange[];
  /** Every other request the proxy saw (the verifier's fetches go to the proxy too). */
  readonly otherExchanges: number;
  /** Media segment requests, by arrival. */
  readonly segments: readonly ServedRequest[];
  /** Every request the pathways served. */
  readonly served: readonly ServedRequest[];
  readonly events: readonly PageEvent[];
  /** When each phase's figures started (performance.now()); the first is the run's start. */
  readonly phaseStarts: readonly number[];
  /** Hop records the server refused. */
  readonly hopFailures: readonly { pathway: string; status: number; body: string }[];
  readonly recordsAccepted: number;
  /** Wall time of the run, ms. */
  readonly ms: number;
}

function firstOf(e: Exchange): string | null {
  if (e.status !== 200) return null;
  try {
    const m = JSON.parse(e.body.toString('utf8')) as { 'PATHWAY-PRIORITY'?: unknown };
    const p = m['PATHWAY-PRIORITY'];
    return Array.isArray(p) && typeof p[0] === 'string' ? p[0] : null;
  } catch {
    return null;
  }
}

export interface ScenarioOptions {
  /** dash.js: CMCD in the query (default) or in the CMCD-Request header. */
  readonly cmcd?: 'query' | 'headers';
  /** dash.js: the CMCD version (default 1). */
  readonly cmcdVersion?: 1 | 2;
  /** The player's debug log, in the error of a run that does not settle. */
  readonly debug?: boolean;
  /** The content description: HLS for hls.js, DASH for the others, unless given. */
  readonly content?: 'hls' | 'dash';
}

/** Runs `player` through both phases; throws with what was seen when a phase does not settle. */
export async function runScenario(player: PlayerName, options: ScenarioOptions = {}): Promise<Run> {
  const t0 = performance.now();
  const media = await ensureMedia();
  const cleanup: (() => Promise<unknown>)[] = [];
  try {
    const pathways = await startPathways(
      PATHWAYS.map((p) => ({ id: p.id, host: p.host })),
      media.dir,
    );
    cleanup.unshift(() => pathways.close());
    const proxy = await startCaptureProxy();
    cleanup.unshift(() => proxy.close());
    const steering = await startSteering(
      PATHWAYS.map((p) =>
        'cloneOf' in p ? { id: p.id, cloneOf: p.cloneOf, host: p.host } : { id: p.id },
      ),
      INITIAL,
      PHASES[0]!.figures,
      proxy,
    );
    cleanup.unshift(() => steering.close());

    const base = PATHWAYS.filter((p) => !('cloneOf' in p)).map((p) => ({
      id: p.id,
      origin: pathways.origins.get(p.id)!,
    }));
    pathways.documents.set('/hls/main.m3u8', multivariantPlaylist(steering.tag, base));
    pathways.documents.set('/dash/main.mpd', mpd(media.mpdTemplate, steering.element, base));
    const initialOrigin = pathways.origins.get(INITIAL)!;
    const content = options.content ?? (player === 'hls.js' ? 'hls' : 'dash');
    const url =
      content === 'hls' ? `${initialOrigin}/hls/main.m3u8` : `${initialOrigin}/dash/main.mpd`;

    const pages = await startPageServer();
    cleanup.unshift(() => pages.close());
    const browser = await launch();
    cleanup.unshift(() => browser.close());
    const consoleLog: string[] = [];
    if (options.debug === true) {
      browser.page.on('console', (m) =>
        consoleLog.push(`${Math.round(performance.now() - t0)} ${m.type()} ${m.text()}`),
      );
    }
    await startPlayer(browser.page, pages.url(player), player, {
      url,
      debug: options.debug === true,
      ...(options.cmcd === undefined ? {} : { cmcd: options.cmcd }),
      ...(options.cmcdVersion === undefined ? {} : { cmcdVersion: options.cmcdVersion }),
    });

    const steeringPath = new URL(steering.serverUri).pathname;
    const steeringGets = () =>
      proxy.exchanges.filter((e) => e.method === 'GET' && e.target.startsWith(steeringPath));
    // Settled: a manifest put `first` first, and since GRACE_MS after it the player fetched
    // SETTLE_SEGMENTS segments from `first`.
    const settled = (first: string, after: number): boolean => {
      const m = steeringGets().find((e) => e.at > after && firstOf(e) === first);
      if (m === undefined) return false;
      const from = pathways.segments(m.at + GRACE_MS).filter((s) => s.pathway === first);
      return from.length >= SETTLE_SEGMENTS;
    };
    const waitFor = async (what: string, first: string, after: number): Promise<void> => {
      const deadline = performance.now() + PHASE_GUARD_MS;
      while (!settled(first, after)) {
        if (performance.now() > deadline) {
          const events = await pageEvents(browser.page).catch(() => []);
          throw new Error(
            `${player}: ${what} did not settle on ${first} within ${PHASE_GUARD_MS} ms\n` +
              `steering: ${JSON.stringify(steeringGets().map((e) => [Math.round(e.at - t0), e.target, e.status, firstOf(e)]))}\n` +
              `segments: ${JSON.stringify(pathways.segments().map((s) => [Math.round(s.at - t0), s.pathway, s.path]))}\n` +
              `page: ${JSON.stringify(events.filter((e) => e.type !== 'fragment')).slice(0, 4000)}\n` +
              `hops refused: ${JSON.stringify(steering.hopFailures.slice(0, 5))}` +
              (consoleLog.length > 0 ? `\nconsole:\n${consoleLog.join('\n')}` : ''),
          );
        }
        await Wake.any([proxy.wake, pathways.wake], deadline - performance.now());
      }
    };

    const phaseStarts: number[] = [];
    for (const [i, phase] of PHASES.entries()) {
      const at = performance.now();
      phaseStarts.push(at);
      if (i > 0) steering.setFigures(phase.figures);
      await waitFor(`phase ${i + 1}`, phase.first, i === 0 ? 0 : at);
    }
    // Reloads until one names the clone as the client's pathway (its first item: dash.js lists
    // the pathway it left first in the request right after a move, docs/players.md), so that the
    // server reads the clone as the client's pathway; woken by each request, bounded by a guard.
    const clone = PATHWAYS.find((p) => 'cloneOf' in p)!.id;
    const namesClone = new RegExp(`_(HLS|DASH)_pathway=(%22|")?${clone}(%2C|,|%22|"|&|$)`);
    const deadline = performance.now() + PHASE_GUARD_MS;
    while (!steeringGets().some((e) => namesClone.test(e.target)) && performance.now() < deadline) {
      await Wake.any([proxy.wake], deadline - performance.now());
    }

    const events = await pageEvents(browser.page);
    await browser.close();
    cleanup.shift();

    // Every manifest served, verified from the network alone.
    const verifier = new NetworkVerifier();
    const exchanges: SteeringExchange[] = [];
    for (const e of steeringGets()) {
      let manifest: Record<string, unknown> | null = null;
      let outcome: Outcome | null = null;
      let decision: Decision | null = null;
      if (e.status === 200) {
        manifest = JSON.parse(e.body.toString('utf8')) as Record<string, unknown>;
        ({ outcome, decision } = await verifier.verify(new Uint8Array(e.body)));
      }
      exchanges.push({ ...e, manifest, first: firstOf(e), outcome, decision });
    }
    return {
      player,
      policy: steering.policy,
      ids: PATHWAYS.map((p) => p.id),
      steering: exchanges,
      otherExchanges: proxy.exchanges.length - exchanges.length,
      segments: pathways.segments(),
      served: [...pathways.log],
      events,
      phaseStarts,
      hopFailures: [...steering.hopFailures],
      recordsAccepted: steering.accepted(),
      ms: Math.round(performance.now() - t0),
    };
  } finally {
    for (const close of cleanup) await close().catch(() => undefined);
  }
}
