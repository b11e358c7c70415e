// video.js on DASH with the real server (docs/players.md, "video.js on DASH"): VHS 3.17 follows
// a steering manifest's first move and no other when the manifests' `RELOAD-URI` is not the URI
// of the MPD's `<ContentSteering>` (the project's server always carries the session there,
// §8.1). One server steers four pages at once, each on its own origin (so that the steering
// requests of each are told apart by their `Origin`):
//
// - `bundle`: video.js 8 as published (its bundle, VHS inside), on the MPD as §8.3 writes it;
// - `core`: video.js without its engine and VHS's own bundle as published (the control: the copy
//   of VHS the patch is applied to plays as the bundled one);
// - `patched`: the same with players/patches/vhs-content-steering.diff applied to a copy of VHS;
// - `session`: video.js 8 as published, on an MPD that names its session's `RELOAD-URI` (written
//   for the viewer after one steering request made for it: the server-side mitigation).
//
// The evidence puts cdn-b first, then cdn-a, then cdn-b again; the MPD lists cdn-a's BaseURL
// first (as the console's stream does) and names cdn-b its default. The run records, per page
// and move, whether its segments moved, its steering requests, and the sessions of the decisions
// it was answered (each manifest verified, §9.1).

import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { toHex } from '@wai-steering/wire';
import { launchMany } from './browser.js';
import { type Exchange, startCaptureProxy } from './capture.js';
import { mpd, sessionElement } from './documents.js';
import { HOSTS } from './matrix.js';
import { ensureMedia, MATRIX_MEDIA } from './media.js';
import { startPageServer } from './page.js';
import { type ServedRequest, startPathways } from './pathways.js';
import { type PageEvent, pageEvents, startPlayer } from './players.js';
import { startSteering } from './steering.js';
import { NetworkVerifier } from './verify.js';
import { Wake } from './wake.js';

const here = dirname(fileURLToPath(import.meta.url));
/** The patch to VHS the docs give. */
export const VHS_PATCH = join(here, '..', 'patches', 'vhs-content-steering.diff');

const B_FIRST = { 'cdn-a': 300_000n, 'cdn-b': 100_000n };
const A_FIRST = { 'cdn-a': 100_000n, 'cdn-b': 300_000n };
/** The manifests' TTL, seconds, and the sessions' grace (the harness's server configuration). */
const TTL_S = 2;
const GRACE_S = 5;
const GRACE_MS = 600;
/** Guards against a hang alone: each wait ends on what it sees, long before these. */
const STEADY_GUARD_MS = 180_000;
const MOVE_GUARD_MS = 120_000;

export type VariantId = 'bundle' | 'core' | 'patched' | 'session';

export const VARIANTS: readonly { id: VariantId; title: string }[] = [
  { id: 'bundle', title: 'video.js 8.24.1 as published (VHS bundled), the MPD as §8.3 writes it' },
  { id: 'core', title: 'video.js core and VHS 3.17.5 as published, the MPD as §8.3 writes it' },
  { id: 'patched', title: 'video.js core and VHS 3.17.5 patched, the MPD as §8.3 writes it' },
  { id: 'session', title: "video.js 8.24.1 as published, the MPD naming its session's RELOAD-URI" },
];

/** VHS's package folder: the copy video.js 8 depends on. */
export function vhsPackage(): string {
  const videojs = realpathSync(join(here, '..', 'node_modules', 'video.js'));
  const require = createRequire(join(videojs, 'package.json'));
  return dirname(require.resolve('@videojs/http-streaming/package.json'));
}

/**
 * A copy of VHS's sources and UMD bundle in a new folder under `dir`, with `patch` applied
 * (`git apply`) when given; the copied bundle's path. node_modules is never written.
 */
export function copyOfVhs(dir: string, patch?: string): string {
  const from = vhsPackage();
  const to = mkdtempSync(join(dir, 'vhs-'));
  mkdirSync(join(to, 'dist'));
  cpSync(join(from, 'src'), join(to, 'src'), { recursive: true });
  cpSync(join(from, 'package.json'), join(to, 'package.json'));
  cpSync(
    join(from, 'dist', 'videojs-http-streaming.js'),
    join(to, 'dist', 'videojs-http-streaming.js'),
  );
  if (patch !== undefined) {
    // Outside a repository `git apply` patches the files of the folder it runs in.
    execFileSync('git', ['apply', '--check', patch], { cwd: to, stdio: 'pipe' });
    execFileSync('git', ['apply', patch], { cwd: to, stdio: 'pipe' });
  }
  return join(to, 'dist', 'videojs-http-streaming.js');
}

/** What one page did through one move. */
export interface Move {
  /** The pathway the evidence put first. */
  readonly target: string;
  /** The pathway of its last video segment before it was first answered so. */
  readonly from: string | null;
  /** Its video segments came from `target` afterwards (two, past a grace). */
  readonly video: boolean;
  /** Its audio segments too. */
  readonly audio: boolean;
  /** It was answered manifests putting `target` first and asked twice more without moving. */
  readonly passed: boolean;
  /** It asked nothing after the move while the pages that follow asked three times. */
  readonly silent: boolean;
}

export interface VariantRun {
  readonly id: VariantId;
  /** VHS's version, as the page's VHS says. */
  readonly version: string | null;
  /** Its steering requests: path (no query), whether it carried `wai_session`, status. */
  readonly requests: readonly { atMs: number; path: string; session: boolean; status: number }[];
  /** The sessions of the decisions it was answered, hex, in order of first use. */
  readonly sessions: readonly string[];
  /** The most of its sessions counted in the loads at once (§6: each for TTL + grace). */
  readonly counted: number;
  /** Every manifest it was answered verified (§9.1). */
  readonly verified: boolean;
  readonly why: string | null;
  /** The first pathway of its first answer, and the pathways of its first audio segments. */
  readonly firstAudio: readonly string[];
  readonly moves: readonly Move[];
  readonly events: readonly PageEvent[];
}

export interface VhsRun {
  readonly variants: readonly VariantRun[];
  readonly ms: number;
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

async function until(done: () => boolean, wakes: readonly Wake[], guardMs: number): Promise<void> {
  const deadline = performance.now() + guardMs;
  while (!done()) {
    const left = deadline - performance.now();
    if (left <= 0) return;
    await Wake.any(wakes, left);
  }
}

export async function runVhs(): Promise<VhsRun> {
  const t0 = performance.now();
  const media = await ensureMedia(MATRIX_MEDIA);
  const cleanup: (() => Promise<unknown>)[] = [];
  const scratch = mkdtempSync(join(tmpdir(), 'wai-players-vhs-'));
  cleanup.push(async () => rmSync(scratch, { recursive: true, force: true }));
  try {
    const published = copyOfVhs(scratch);
    const patched = copyOfVhs(scratch, VHS_PATCH);
    const pathways = await startPathways(HOSTS, media.dir);
    cleanup.unshift(() => pathways.close());
    const proxy = await startCaptureProxy();
    cleanup.unshift(() => proxy.close());
    const steering = await startSteering(
      [{ id: 'cdn-a' }, { id: 'cdn-b' }],
      'cdn-b',
      B_FIRST,
      proxy,
      { ttl_s: TTL_S },
    );
    cleanup.unshift(() => steering.close());
    const browser = await launchMany();
    cleanup.unshift(() => browser.close());
    const base = (key: string) =>
      HOSTS.slice(0, 2).map((h) => ({
        id: h.id,
        origin: `${pathways.origins.get(h.id)!}/s/${key}`,
      }));

    const pages = await Promise.all(
      VARIANTS.map(async ({ id }) => {
        const vhs = id === 'core' ? published : id === 'patched' ? patched : undefined;
        const server = await startPageServer(vhs === undefined ? {} : { vhs });
        cleanup.unshift(() => server.close());
        let element = steering.element;
        if (id === 'session') {
          // Written for one viewer: the session's first steering request, made for it.
          const res = await fetch(steering.serverUri);
          const m = (await res.json()) as { 'RELOAD-URI'?: string };
          if (typeof m['RELOAD-URI'] !== 'string') throw new Error(`no RELOAD-URI: ${res.status}`);
          element = sessionElement(element, m['RELOAD-URI']);
        }
        pathways.documents.set(`/s/${id}/dash/main.mpd`, mpd(media.mpdTemplate, element, base(id)));
        const page = await browser.newPage();
        await startPlayer(page, server.url('video.js'), 'video.js', {
          url: `${pathways.origins.get('cdn-b')!}/s/${id}/dash/main.mpd`,
          content: 'dash',
        });
        return { id, origin: server.origin, page };
      }),
    );

    const steeringPath = new URL(steering.serverUri).pathname;
    const reloadPath = new URL(steering.policy.reload_uri).pathname;
    const of = (origin: string) =>
      proxy.exchanges.filter(
        (e) =>
          e.method === 'GET' &&
          (e.target.startsWith(steeringPath) || e.target.startsWith(reloadPath)) &&
          e.headers.origin === origin,
      );
    const segs = (id: string, audio: boolean): ServedRequest[] =>
      pathways.log.filter(
        (s) =>
          s.scenario === id &&
          /\.m4s$/.test(s.path) &&
          !/\/init-/.test(s.path) &&
          /\/chunk-1-/.test(s.path) === audio,
      );
    const wakes = [proxy.wake, pathways.wake];

    // Steady: each page was answered, and asked twice more (it plays on; its video may not, the
    // defect's third part).
    await until(
      () =>
        pages.every((p) => {
          const mine = of(p.origin).filter((e) => e.status === 200);
          return mine.length >= 3;
        }),
      wakes,
      STEADY_GUARD_MS,
    );

    const moves = new Map<VariantId, Move[]>(VARIANTS.map((v) => [v.id, []]));
    const followers = pages.filter((p) => p.id === 'patched' || p.id === 'session');
    for (const [target, figures] of [
      ['cdn-a', A_FIRST],
      ['cdn-b', B_FIRST],
    ] as const) {
      const end = performance.now();
      steering.setFigures(figures);
      const answered = (origin: string) =>
        of(origin).find((e) => e.at > end && firstOf(e) === target);
      const state = (p: (typeof pages)[number]) => {
        const m = answered(p.origin);
        const after = (audio: boolean) =>
          m === undefined
            ? []
            : segs(p.id, audio).filter((s) => s.at >= m.at + GRACE_MS && s.pathway === target);
        const video = after(false).length >= 2;
        const audio = after(true).length >= 2;
        const later = m === undefined ? [] : of(p.origin).filter((e) => e.at > m.at);
        const last = of(p.origin).at(-1)?.at ?? 0;
        const since = followers.reduce(
          (n, f) => Math.min(n, of(f.origin).filter((e) => e.at > Math.max(last, end)).length),
          Number.POSITIVE_INFINITY,
        );
        const from =
          segs(p.id, false)
            .filter((s) => s.at < (m?.at ?? end))
            .at(-1)?.pathway ?? null;
        return {
          target,
          from,
          video,
          audio,
          passed: m !== undefined && !video && later.length >= 2,
          silent: m === undefined && since >= 3,
        };
      };
      await until(
        () =>
          pages.every((p) => {
            const s = state(p);
            return (s.video && s.audio) || s.passed || s.silent;
          }),
        wakes,
        MOVE_GUARD_MS,
      );
      for (const p of pages) moves.get(p.id)!.push(state(p));
    }

    const verifier = new NetworkVerifier();
    const variants: VariantRun[] = [];
    for (const p of pages) {
      const mine = of(p.origin);
      const sessions: string[] = [];
      const placed: { t: bigint; ttl: number; session: string }[] = [];
      let why: string | null = null;
      for (const e of mine.filter((x) => x.status === 200)) {
        try {
          const v = await verifier.verify(new Uint8Array(e.body));
          if (v.outcome.outcome !== 'accept') {
            why = `${e.target}: ${JSON.stringify(v.outcome)}`;
            continue;
          }
          const session = toHex(v.decision.session);
          if (!sessions.includes(session)) sessions.push(session);
          placed.push({ t: v.decision.t, ttl: v.decision.ttl, session });
        } catch (error) {
          why = `${e.target}: ${error instanceof Error ? error.message : String(error)}`;
        }
      }
      // §6's count of the page's own sessions: each counts from a decision until TTL + grace
      // after it, unless a later decision of it placed it again.
      let counted = 0;
      for (const d of placed) {
        const live = new Set<string>();
        for (const s of sessions) {
          const lastOf = placed.filter((x) => x.session === s && x.t <= d.t).at(-1);
          if (lastOf !== undefined && d.t < lastOf.t + BigInt(lastOf.ttl + GRACE_S) * 1_000_000n)
            live.add(s);
        }
        counted = Math.max(counted, live.size);
      }
      const events = await pageEvents(p.page).catch(() => []);
      const version = events.find((e) => e.type === 'version');
      variants.push({
        id: p.id,
        version:
          (version?.vhs as Record<string, string> | undefined)?.['@videojs/http-streaming'] ?? null,
        requests: mine.map((e) => ({
          atMs: Math.round(e.at - t0),
          path: e.target.split('?')[0]!,
          session: /[?&]wai_session=/.test(e.target),
          status: e.status,
        })),
        sessions,
        counted,
        verified: why === null && placed.length > 0,
        why,
        firstAudio: segs(p.id, true)
          .slice(0, 3)
          .map((s) => s.pathway),
        moves: moves.get(p.id)!,
        events,
      });
    }
    return { variants, ms: Math.round(performance.now() - t0) };
  } finally {
    for (const c of cleanup) await c().catch(() => undefined);
  }
}
