// The steering server under test, the project's own (`@wai-steering/server`), started the way an
// operator starts it: a room with its key log, a signed policy and a steering key written to
// files, a configuration file read by `loadConfig`, then `startServer`. Its room's hops are
// simulated: each pathway has one edge hop that cuts a `WMH1` record every period, signs it and
// POSTs it to the server, with figures the test sets, so that the cheapest pathway changes when
// the test says.

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dashElement, hlsTag } from '@wai-steering/manifest';
import { loadConfig, type RunningServer, startServer } from '@wai-steering/server';
import {
  CLASS,
  CLASS_LABEL,
  compareBytes,
  digestOf,
  KEY_STATUS,
  NO_CAPACITY_LIMIT,
  NOT_A_CLONE,
  nobleBackend,
  type PolicyFields,
  readPolicy,
  readRoom,
  roomIdOf,
  secretKeyToJwk,
  signHopRecord,
  signKeyLog,
  signPolicy,
  signRoom,
  TRACK_DIRECTION,
  TRACK_KIND,
  toHex,
} from '@wai-steering/wire';
import type { CaptureProxy } from './capture.js';
import { Wake } from './wake.js';

/** A pathway of the policy. */
export interface PathwaySpec {
  readonly id: string;
  /** The ID of the pathway it clones, for a clone. */
  readonly cloneOf?: string;
  /** A clone's `URI-REPLACEMENT` `HOST`. */
  readonly host?: string;
  /** A clone's `URI-REPLACEMENT` `PARAMS`. */
  readonly params?: readonly { readonly name: string; readonly value: string }[];
}

/** The timing of the policy: short, so that reloads and window moves happen within seconds. */
export const TIMING = {
  /** P: the hops cut a record every second. */
  period_us: 1_000_000n,
  /** W: two periods of evidence. */
  window_us: 2_000_000n,
  /**
   * L: a record is required 900 ms after its period ends; the hops POST it ~30 ms after, so a
   * busy machine has room before a pathway would read as stale.
   */
  lag_us: 900_000n,
  /**
   * The manifests' TTL, seconds: the players reload every 4 s. Not 2: shaka-player 5.2 stops
   * steering for good when its first TTL runs out before it has made its ABR manager, which a
   * busy machine's start took longer than 2 s to (docs/players.md, shaka-player).
   */
  ttl_s: 4,
  min_ttl_s: 1,
} as const;

/** The energy class the hops state (one class, so figures compare, §6.2). */
const HOP_CLASS = CLASS.OnChipCounter;
/** Media bytes each edge hop states it delivered per period. */
const BYTES_PER_PERIOD = 1_000_000n;

interface KeyPair {
  readonly secret: Uint8Array;
  readonly public: Uint8Array;
}

function keyPair(): KeyPair {
  const secret = new Uint8Array(randomBytes(32));
  return { secret, public: nobleBackend.publicKey(secret) };
}

export interface HopFailure {
  readonly pathway: string;
  readonly status: number;
  readonly body: string;
}

export interface SteeringOptions {
  /** The manifests' TTL, seconds (default TIMING.ttl_s). */
  readonly ttl_s?: number;
  /** Fields merged into the server's configuration file (`admin`, `budget`, …). */
  readonly config?: Readonly<Record<string, unknown>>;
  /**
   * A session secret in a file (`sessions.secret`), as a deployment keeps one: the sessions it
   * minted stay its own across a restart. Without it each process draws its own.
   */
  readonly sessionSecret?: boolean;
}

export interface Steering {
  /** The server running now (another one after {@link Steering.restart}). */
  readonly server: RunningServer;
  /** The policy in force (another one after {@link Steering.rotate}). */
  readonly policy: PolicyFields;
  /** `hlsTag(policy)`. */
  readonly tag: string;
  /** `dashElement(policy)`. */
  readonly element: string;
  /** The policy's `server_uri` (the capture proxy's address). */
  readonly serverUri: string;
  /**
   * Sets each pathway's microjoules per period from the next period on: the lowest is the
   * cheapest (every hop states the same delivery).
   */
  setFigures(joules: Readonly<Record<string, bigint>>): void;
  /** Records the hops POSTed that the server did not accept. */
  readonly hopFailures: HopFailure[];
  /** Notified after each record the hops post (accepted or not). */
  readonly wake: Wake;
  /** Records accepted by the server so far. */
  accepted(): number;
  /**
   * Stops the server and starts it again from the same configuration, as an operator's restart
   * does; the hops post again the periods of the window (a new store holds none of them).
   */
  restart(): Promise<void>;
  /** Removes the store's file (and its WAL): the server turns degraded (docs/server.md). */
  removeStore(): void;
  /**
   * Signs a policy with `change` applied, writes it over the policy file and has the server read
   * it (`POST /admin/reload`, which needs `admin` in the configuration); its digest, hex.
   */
  rotate(change: Partial<PolicyFields>): Promise<string>;
  close(): Promise<void>;
}

/**
 * Starts the steering server for `pathways` (`initial` first among the base pathways), its URIs
 * naming `proxy`, and the hops' simulator with `figures`.
 */
export async function startSteering(
  pathways: readonly PathwaySpec[],
  initial: string,
  figures: Readonly<Record<string, bigint>>,
  proxy: CaptureProxy,
  options: SteeringOptions = {},
): Promise<Steering> {
  const dir = mkdtempSync(join(tmpdir(), 'wai-players-steering-'));
  const authority = keyPair();
  const origin = keyPair();
  const steer = keyPair();
  const hops = new Map(pathways.map((p) => [p.id, keyPair()]));

  const roomBytes = signRoom(
    { authority: authority.public, origin: origin.public, name: 'players end to end' },
    authority.secret,
  );
  const room = readRoom(roomBytes);
  if (!room.ok) throw new Error(`room: ${room.refusal.message}`);
  const roomId = roomIdOf(room.value);

  const energy = `energy/${CLASS_LABEL[HOP_CLASS]}`;
  const entries = [
    { key: authority.public, status: KEY_STATUS.active, may_sign: [energy, 'live/room'] },
    { key: steer.public, status: KEY_STATUS.active, may_sign: [energy, 'live/steer'] },
    ...[...hops.values()].map((h) => ({
      key: h.public,
      status: KEY_STATUS.active,
      may_sign: [energy, 'live/hop'],
    })),
  ].sort((a, b) => compareBytes(a.key, b.key));
  const keyLogBytes = signKeyLog(
    { origin: origin.public, seq: 0n, prev: new Uint8Array(32), entries },
    origin.secret,
  );

  const index = new Map(pathways.map((p, i) => [p.id, i]));
  let policy: PolicyFields = {
    room: roomId,
    signer: steer.public,
    ...TIMING,
    ...(options.ttl_s === undefined ? {} : { ttl_s: options.ttl_s }),
    basis: 1,
    floor: 0,
    latency_ceiling_ms: 100,
    // No client is held for its buffer (§6.4 step 1): the test moves clients on evidence.
    min_buffer_ms: 0,
    hysteresis_ppm: 50_000,
    flags: 0,
    initial: index.get(initial)!,
    // Tiers far below any rate a player measures, even on a busy machine, so that no client is
    // at its floor (§6.4 step 2) and the test moves clients on evidence alone: with tiers of 150
    // and 300 kbit/s, shaka and video.js measured under 300 kbit/s on a machine with a load
    // average of 22 and were held on their pathway.
    tiers: [1_000n, 2_000n],
    // A query with two parameters: the DASH element writes its `&` as `&amp;` (§8.3).
    server_uri: `${proxy.origin}/steer?room=players&v=1`,
    reload_uri: `${proxy.origin}/steer/reload`,
    decision_uri: `${proxy.origin}/decisions/`,
    pathways: pathways.map((p) => ({
      id: p.id,
      base: p.cloneOf === undefined ? NOT_A_CLONE : index.get(p.cloneOf)!,
      host: p.host ?? '',
      params: p.params ?? [],
      top_tier: 1,
      latency_ms: 20,
      capacity: NO_CAPACITY_LIMIT,
      min_share_ppm: 0,
      hops: [{ key: hops.get(p.id)!.public, place: 1 }],
    })),
  };
  const policyBytes = signPolicy(policy, steer.secret);

  writeFileSync(join(dir, 'room.wrd'), roomBytes);
  writeFileSync(join(dir, 'key-log.wkl'), keyLogBytes);
  writeFileSync(join(dir, 'policy.wsp'), policyBytes);
  writeFileSync(join(dir, 'steer.jwk'), JSON.stringify(secretKeyToJwk(steer.secret)));
  if (options.sessionSecret === true) writeFileSync(join(dir, 'session.secret'), randomBytes(32));
  writeFileSync(
    join(dir, 'server.json'),
    JSON.stringify({
      room: 'room.wrd',
      key_log: 'key-log.wkl',
      policy: 'policy.wsp',
      signing_key: 'steer.jwk',
      listen: { host: '127.0.0.1', port: 0 },
      store: { path: 'store.sqlite', create: true },
      sessions: {
        grace: '5s',
        ...(options.sessionSecret === true ? { secret: 'session.secret' } : {}),
      },
      ...options.config,
    }),
  );
  let server: RunningServer;
  try {
    server = await startServer(loadConfig(join(dir, 'server.json')));
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  proxy.setUpstream(server.url);

  // The hops: for each period that has ended, each hop signs and POSTs its record.
  let current = { ...figures };
  const hopFailures: HopFailure[] = [];
  let accepted = 0;
  const wake = new Wake();
  // Records the server could not take for now (down, or answering 503) are posted again at the
  // next period, as a hop agent's spool does.
  let pending: { pathway: string; start: bigint }[] = [];
  const P = Number(TIMING.period_us / 1000n);
  const post = async (pathway: string, start: bigint): Promise<void> => {
    const hop = hops.get(pathway)!;
    const bytes = signHopRecord(
      {
        room: roomId,
        hop: hop.public,
        start,
        end: start + TIMING.period_us,
        sessions: 1,
        class: HOP_CLASS,
        joules: current[pathway] ?? 1n,
        subscriber_us: [0n, TIMING.period_us, 0n, 0n, 0n, 0n, 0n, 0n],
        tracks: [
          {
            track: 1,
            kind: TRACK_KIND.media,
            direction: TRACK_DIRECTION.out,
            bytes: BYTES_PER_PERIOD,
          },
        ],
      },
      hop.secret,
    );
    try {
      const res = await fetch(`${server.url}/records`, {
        method: 'POST',
        headers: { 'content-type': 'application/octet-stream' },
        body: Buffer.from(bytes),
      });
      const text = await res.text();
      if (res.ok) accepted++;
      else {
        hopFailures.push({ pathway, status: res.status, body: text });
        if (res.status === 503) pending.push({ pathway, start });
      }
    } catch (error) {
      hopFailures.push({ pathway, status: 0, body: String(error) });
      pending.push({ pathway, start });
    }
    wake.notify();
  };
  const cut = (periodStartMs: number): Promise<unknown> => {
    const retry = pending;
    pending = [];
    return Promise.all([
      ...retry.map((r) => post(r.pathway, r.start)),
      ...pathways.map((p) => post(p.id, BigInt(periodStartMs) * 1000n)),
    ]);
  };

  // The periods before now, so that the first window is covered.
  const seedPeriods = Number(TIMING.window_us / TIMING.period_us) + 2;
  const seed = async (): Promise<number> => {
    const lastEnd = Math.floor(Date.now() / P) * P;
    for (let k = seedPeriods; k >= 1; k--) await cut(lastEnd - k * P);
    return lastEnd;
  };
  let nextEnd = (await seed()) + P;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const schedule = (): void => {
    if (stopped) return;
    timer = setTimeout(
      () => {
        const end = nextEnd;
        nextEnd += P;
        void cut(end - P);
        schedule();
      },
      Math.max(0, nextEnd + 30 - Date.now()),
    );
  };
  schedule();

  const configFile = join(dir, 'server.json');
  return {
    get server() {
      return server;
    },
    get policy() {
      return policy;
    },
    tag: hlsTag(policy),
    element: dashElement(policy),
    serverUri: policy.server_uri,
    setFigures(joules) {
      current = { ...joules };
    },
    hopFailures,
    wake,
    accepted: () => accepted,
    async restart() {
      await server.close();
      server = await startServer(loadConfig(configFile));
      proxy.setUpstream(server.url);
      await seed();
    },
    removeStore() {
      for (const f of ['store.sqlite', 'store.sqlite-wal', 'store.sqlite-shm']) {
        rmSync(join(dir, f), { force: true });
      }
    },
    async rotate(change) {
      const next: PolicyFields = { ...policy, ...change };
      const bytes = signPolicy(next, steer.secret);
      const read = readPolicy(bytes);
      if (!read.ok) throw new Error(`policy: ${read.refusal.reason}`);
      writeFileSync(join(dir, 'policy.wsp'), bytes);
      const admin = (options.config?.admin as { token?: string } | undefined)?.token;
      if (admin === undefined) throw new TypeError('rotate needs admin.token in the config');
      const res = await fetch(`${server.url}/admin/reload`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin}` },
      });
      const body = (await res.json()) as { policy?: string; changed?: boolean };
      const digest = toHex(digestOf(read.value));
      if (res.status !== 200 || body.policy !== digest) {
        throw new Error(`POST /admin/reload: ${res.status} ${JSON.stringify(body)}`);
      }
      policy = next;
      return digest;
    },
    async close() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
