// The server's own answers, with the real server: every player on every protocol it steers
// (hls.js, dash.js, shaka-player and video.js, each in its own page on its own origin, so that the
// steering requests of each are told apart by their `Origin`) steered by one `@wai-steering/server`, through what an operator
// meets: a client over its budget (`over_budget`), a restart, a store outage (the store's file
// removed: `store_unavailable`, then a restart, which makes a new store) and a policy
// rotation (a new policy file and `POST /admin/reload`). After each, the run records when each
// player was next answered 200, that the manifest verifies (§9.1, from the network alone), and
// that the player then fetched its segments from the pathway the manifests put first: it
// recovered. The evidence changes at the end of each phase, so following is moving.

import { toHex } from '@wai-steering/wire';
import { launchMany, type ManyPages } from './browser.js';
import { type Exchange, startCaptureProxy } from './capture.js';
import { mpd, multivariantPlaylist, sessionElement } from './documents.js';
import { type Column, columnKey, HOSTS } from './matrix.js';
import { ensureMedia, MATRIX_MEDIA } from './media.js';
import { type PageServer, type PlayerName, startPageServer } from './page.js';
import { startPathways } from './pathways.js';
import { type PageEvent, pageEvents, startPlayer } from './players.js';
import { startSteering } from './steering.js';
import { NetworkVerifier } from './verify.js';
import { Wake } from './wake.js';

const B_FIRST = { 'cdn-a': 300_000n, 'cdn-b': 100_000n, 'cdn-c': 400_000n };
const A_FIRST = { 'cdn-a': 100_000n, 'cdn-b': 300_000n, 'cdn-c': 400_000n };
/** The admin route's bearer token (the policy rotation). */
const ADMIN_TOKEN = 'players-suite-admin-token';
/**
 * Budgets low enough for the test to spend one address's share (the players reach the server
 * through one proxy, so they share its address) and high enough for the players and hops alone.
 */
const BUDGET = { requests: { rate: 10, burst: 20 }, sessions: { rate: 2, burst: 20 } };
/** The manifests' TTL, seconds (4, not 2: shaka's start, harness/steering.ts `TIMING`). */
const TTL_S = 4;
/**
 * Guards against a hang alone: each wait below ends when what it waits for is seen (every player
 * declined, every player moved); these bound a wait for what never comes, far beyond what a
 * busy machine takes.
 */
const RECOVERY_GUARD_MS = 120_000;
const DECLINE_GUARD_MS = 90_000;
const STEADY_GUARD_MS = 180_000;
const GRACE_MS = 600;
/** Requests the budget's flood keeps in flight. */
const FLOODERS = 8;

/** A column of the recovery run: a player on a protocol, and how its description names the server. */
export interface RecoveryColumn extends Column {
  /**
   * The MPD names the session's `RELOAD-URI` (one steering request made for it when it is
   * written), not the policy's `server_uri`: what keeps VHS steering on DASH (docs/players.md).
   */
  readonly session?: boolean;
}

/** The column's name: `video.js DASH`, `video.js DASH, the MPD naming its session`. */
export function recoveryKey(c: RecoveryColumn): string {
  return `${columnKey(c)}${c.session === true ? ', the MPD naming its session' : ''}`;
}

/**
 * Every player on every protocol it steers; video.js on DASH on an MPD that names its session's
 * `RELOAD-URI`, since on one that names the policy's `server_uri` it stops steering after its
 * first move (the behaviour matrix, `players/test/vhs.test.ts`).
 */
export const RECOVERY_COLUMNS: readonly RecoveryColumn[] = [
  { player: 'hls.js', content: 'hls' },
  { player: 'dash.js', content: 'dash' },
  { player: 'shaka-player', content: 'dash' },
  { player: 'shaka-player', content: 'hls' },
  { player: 'video.js', content: 'hls' },
  { player: 'video.js', content: 'dash', session: true },
];

export type PhaseName = 'over-budget' | 'restart' | 'store-outage' | 'rotation';

export const PHASE_TITLES: Readonly<Record<PhaseName, string>> = {
  'over-budget': 'over its budget: `over_budget` with `Retry-After` (503 to HLS, 429 to DASH)',
  restart: "the server's restart",
  'store-outage':
    'a store outage: `store_unavailable` with `Retry-After: 10` (503 to HLS, 429 to DASH), then a restart',
  rotation: 'a policy rotation (a new policy file, `POST /admin/reload`)',
};

export interface Recovery {
  readonly phase: PhaseName;
  readonly player: PlayerName;
  /** {@link recoveryKey}. */
  readonly column: string;
  /** The pathway of its last segment before the phase began (the pathway it moves from). */
  readonly from: string | null;
  /** The answers the player got between the phase's start and its end (status and error). */
  readonly declined: readonly string[];
  /** From the phase's end to the player's next 200 (ms), or null: none within the ceiling. */
  readonly answeredMs: number | null;
  /** From the phase's end to its segments coming from the new first pathway (ms), or null. */
  readonly followedMs: number | null;
  /** The pathway the manifests put first after the phase. */
  readonly target: string;
  /** The manifests it got after the phase verified (§9.1). */
  readonly verified: boolean;
  /** Why they did not (the outcome, or what failed, with the exchange's time), or null. */
  readonly why: string | null;
  /** The policy the first decision after the phase names (hex digest). */
  readonly policy: string | null;
  /**
   * What it did after the phase's end, to say why when it did not recover: its steering answers
   * (ms after the end, status, first pathway) and the pathways of its segments.
   */
  readonly after: { readonly answers: readonly string[]; readonly segments: string };
}

export interface RecoveryRun {
  readonly results: readonly Recovery[];
  /** The policy the rotation put in force (hex digest). */
  readonly rotated: string;
  readonly events: Readonly<Record<string, readonly PageEvent[]>>;
  /** Each column's steering exchanges: ms since the run's start, status, first pathway, path. */
  readonly steering: Readonly<Record<string, readonly string[]>>;
  readonly ms: number;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Waits until `done()`, woken by `wakes`; false after `guardMs` (a hang). */
async function until(
  done: () => boolean,
  wakes: readonly Wake[],
  guardMs: number,
): Promise<boolean> {
  const deadline = performance.now() + guardMs;
  while (!done()) {
    const left = deadline - performance.now();
    if (left <= 0) return false;
    await Wake.any(wakes, left);
  }
  return true;
}

function firstOf(e: Exchange): string | null {
  if (e.status !== 200) return null;
  try {
    const p = (JSON.parse(e.body.toString('utf8')) as { 'PATHWAY-PRIORITY'?: unknown })[
      'PATHWAY-PRIORITY'
    ];
    return Array.isArray(p) && typeof p[0] === 'string' ? p[0] : null;
  } catch {
    return null;
  }
}

function errorOf(e: Exchange): string {
  try {
    return `${e.status} ${(JSON.parse(e.body.toString('utf8')) as { error?: string }).error ?? ''}`.trim();
  } catch {
    return String(e.status);
  }
}

export async function runRecovery(): Promise<RecoveryRun> {
  const t0 = performance.now();
  const media = await ensureMedia(MATRIX_MEDIA);
  const cleanup: (() => Promise<unknown>)[] = [];
  try {
    const pathways = await startPathways(HOSTS, media.dir);
    cleanup.unshift(() => pathways.close());
    const proxy = await startCaptureProxy();
    cleanup.unshift(() => proxy.close());
    const steering = await startSteering(
      // The clone has PARAMS: video.js 8 throws on a clone without them (docs/players.md).
      [
        { id: 'cdn-a' },
        { id: 'cdn-b' },
        {
          id: 'cdn-c',
          cloneOf: 'cdn-b',
          host: '127.0.0.13',
          params: [{ name: 'wai-clone', value: 'cdn-c' }],
        },
      ],
      'cdn-b',
      B_FIRST,
      proxy,
      {
        ttl_s: TTL_S,
        config: { admin: { token: ADMIN_TOKEN }, budget: BUDGET },
        // The sessions the MPDs name outlive the restarts, as a deployment's do.
        sessionSecret: true,
      },
    );
    cleanup.unshift(() => steering.close());
    const browser: ManyPages = await launchMany();
    cleanup.unshift(() => browser.close());

    // An MPD written for one viewer names the RELOAD-URI of a session: its writer makes the
    // session's first steering request (as a client with queryBeforeStart would, no report).
    const elementFor = async (c: RecoveryColumn): Promise<string> => {
      if (c.session !== true) return steering.element;
      const res = await fetch(steering.serverUri);
      const manifest = (await res.json()) as { 'RELOAD-URI'?: string };
      if (res.status !== 200 || typeof manifest['RELOAD-URI'] !== 'string') {
        throw new Error(`the session's first request: ${res.status} ${JSON.stringify(manifest)}`);
      }
      return sessionElement(steering.element, manifest['RELOAD-URI']);
    };

    // Each player: its own page origin (its `Origin` on every steering request) and its own
    // documents and segments under `/s/<key>/` on the pathways.
    const runs: {
      player: PlayerName;
      column: string;
      content: 'hls' | 'dash';
      origin: string;
      key: string;
    }[] = [];
    const pages = await Promise.all(
      RECOVERY_COLUMNS.map(async (c) => {
        const { player, content } = c;
        const server: PageServer = await startPageServer();
        cleanup.unshift(() => server.close());
        const key = `${player.replace(/[^a-z]/g, '')}${content}${c.session === true ? 'session' : ''}`;
        const base = HOSTS.slice(0, 2).map((h) => ({
          id: h.id,
          origin: `${pathways.origins.get(h.id)!}/s/${key}`,
        }));
        pathways.documents.set(
          `/s/${key}/hls/main.m3u8`,
          multivariantPlaylist(steering.tag, base, MATRIX_MEDIA),
        );
        // The MPD lists its default service location (cdn-b) first, as the matrix's does.
        pathways.documents.set(
          `/s/${key}/dash/main.mpd`,
          mpd(media.mpdTemplate, await elementFor(c), [...base].reverse()),
        );
        runs.push({ player, column: recoveryKey(c), content, origin: server.origin, key });
        const page = await browser.newPage();
        const url =
          content === 'hls'
            ? `${pathways.origins.get('cdn-b')!}/s/${key}/hls/main.m3u8`
            : `${pathways.origins.get('cdn-b')!}/s/${key}/dash/main.mpd`;
        await startPlayer(page, server.url(player), player, { url, content });
        return { column: recoveryKey(c), page };
      }),
    );

    const steeringPath = new URL(steering.serverUri).pathname;
    const of = (origin: string) =>
      proxy.exchanges.filter(
        (e) =>
          e.method === 'GET' && e.target.startsWith(steeringPath) && e.headers.origin === origin,
      );
    const segments = (key: string) =>
      pathways.log.filter(
        (s) => s.scenario === key && /\.(ts|m4s)$/.test(s.path) && !/\/init-/.test(s.path),
      );
    /** The player's exchange after `after` whose manifest puts `target` first, once followed. */
    const followed = (r: (typeof runs)[number], after: number, target: string) => {
      const m = of(r.origin).find((e) => e.at > after && firstOf(e) === target);
      if (m === undefined) return undefined;
      const from = segments(r.key).filter((s) => s.at >= m.at + GRACE_MS && s.pathway === target);
      return from.length >= 2 ? { manifest: m, at: from[1]!.at } : undefined;
    };

    // Steady: every player steered on cdn-b.
    const wakes = [proxy.wake, pathways.wake];
    const steady = await until(
      () => runs.every((r) => followed(r, 0, 'cdn-b') !== undefined),
      wakes,
      STEADY_GUARD_MS,
    );
    if (!steady) {
      throw new Error(
        `the players did not start steering: ${JSON.stringify(
          runs.map((r) => [r.column, of(r.origin).map((e) => [Math.round(e.at - t0), e.status])]),
        )}`,
      );
    }

    const verifier = new NetworkVerifier();
    const results: Recovery[] = [];
    let rotated = '';
    const declinedBy = (error: string, since: number) =>
      runs.every((r) => of(r.origin).some((e) => e.at > since && errorOf(e).endsWith(` ${error}`)));

    const phases: { name: PhaseName; target: string; act: () => Promise<void> }[] = [
      {
        name: 'over-budget',
        target: 'cdn-a',
        act: async () => {
          // Another client of the proxy's address spends the budget until each player was
          // declined. The requests budget refills 10 a second; FLOODERS requests in flight, each
          // followed by the next at most 50 times a second, keep it empty however long a
          // decision takes on a busy machine (one at a time, the flood fell behind the refill
          // when each took a tenth of a second).
          const since = performance.now();
          const flood = `${steering.server.url}${steeringPath}?room=players&v=1`;
          const over = () =>
            declinedBy('over_budget', since) || performance.now() - since > DECLINE_GUARD_MS;
          await Promise.all(
            Array.from({ length: FLOODERS }, async () => {
              while (!over()) {
                await Promise.all([fetch(flood).then((r) => r.arrayBuffer()), sleep(20)]).catch(
                  () => undefined,
                );
              }
            }),
          );
          steering.setFigures(A_FIRST);
        },
      },
      {
        name: 'restart',
        target: 'cdn-b',
        act: async () => {
          steering.setFigures(B_FIRST);
          await steering.restart();
        },
      },
      {
        name: 'store-outage',
        target: 'cdn-a',
        act: async () => {
          const since = performance.now();
          steering.removeStore();
          await until(() => declinedBy('store_unavailable', since), wakes, DECLINE_GUARD_MS);
          steering.setFigures(A_FIRST);
          await steering.restart();
        },
      },
      {
        name: 'rotation',
        target: 'cdn-b',
        act: async () => {
          steering.setFigures(B_FIRST);
          rotated = await steering.rotate({ ttl_s: TTL_S + 1, hysteresis_ppm: 40_000 });
        },
      },
    ];

    for (const phase of phases) {
      const start = performance.now();
      // The pathway each was on when the phase began (its act moves the evidence, and a player may
      // move before the act ends, while a restart waits): the one it moves from.
      const from = new Map(
        runs.map((r) => [
          r.key,
          segments(r.key)
            .filter((s) => s.at <= start)
            .at(-1)?.pathway ?? null,
        ]),
      );
      await phase.act();
      const end = performance.now();
      await until(
        () => runs.every((r) => followed(r, end, phase.target) !== undefined),
        wakes,
        RECOVERY_GUARD_MS,
      );
      for (const r of runs) {
        const mine = of(r.origin);
        const declined = mine
          .filter((e) => e.at > start && e.at <= end && e.status !== 200)
          .map(errorOf);
        const answered = mine.find((e) => e.at > end && e.status === 200);
        const f = followed(r, end, phase.target);
        let verified = false;
        let why: string | null = null;
        let policy: string | null = null;
        const check = [answered, f?.manifest].filter((e) => e !== undefined) as Exchange[];
        for (const e of check) {
          const at = `the answer at ${Math.round(e.at - end)} ms (${e.target})`;
          try {
            // A fetch that failed on the network (no HTTP status: a timeout, or a kept-alive
            // connection the other side closed, on a machine this busy) says nothing of the
            // manifest: tried again, up to twice. Any answer of the server stands.
            const once = () => verifier.verify(new Uint8Array(e.body));
            const unfetched = (error: { name?: string; status?: number }) =>
              error?.name === 'FetchError' && error.status === undefined;
            const v = await once()
              .catch((error) => (unfetched(error) ? once() : Promise.reject(error)))
              .catch((error) => (unfetched(error) ? once() : Promise.reject(error)));
            if (v.outcome.outcome !== 'accept') {
              why = `${at}: ${JSON.stringify(v.outcome)}`;
              break;
            }
            if (e === answered) policy = toHex(v.decision.policy);
          } catch (error) {
            why = `${at}: ${error instanceof Error ? error.message : String(error)}`;
            break;
          }
        }
        verified = check.length > 0 && why === null;
        results.push({
          phase: phase.name,
          player: r.player,
          column: r.column,
          from: from.get(r.key) ?? null,
          declined,
          answeredMs: answered === undefined ? null : Math.round(answered.at - end),
          followedMs: f === undefined ? null : Math.round(f.at - end),
          target: phase.target,
          verified,
          why,
          policy,
          after: {
            answers: mine
              .filter((e) => e.at > end)
              .slice(0, 12)
              .map((e) => `${Math.round(e.at - end)} ${e.status} ${firstOf(e) ?? '-'}`),
            segments: segments(r.key)
              .filter((s) => s.at > end)
              .map((s) => s.pathway.slice(-1))
              .join('')
              .slice(0, 60),
          },
        });
      }
    }

    const events: Record<string, PageEvent[]> = {};
    for (const { column, page } of pages) events[column] = await pageEvents(page).catch(() => []);
    const exchanges: Record<string, string[]> = {};
    for (const r of runs) {
      exchanges[r.column] = of(r.origin).map(
        (e) =>
          `${Math.round(e.at - t0)} ${e.status} ${firstOf(e) ?? '-'} ${e.target.split('?')[0]}`,
      );
    }
    return {
      results,
      rotated,
      events,
      steering: exchanges,
      ms: Math.round(performance.now() - t0),
    };
  } finally {
    for (const c of cleanup) await c().catch(() => undefined);
  }
}
