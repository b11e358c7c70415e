/**
 * The demo's room: keys (RFC 8037 JWK files), a room with an origin, the origin's key log (the
 * authority with `live/room`, a steering key with `live/steer`, each hop with `live/hop` and the
 * `energy/` label of its class), a policy of three pathways of which one is a clone, and the
 * server's configuration, written into a directory.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CLASS_LABEL,
  compareBytes,
  digestOf,
  type KeyLogEntry,
  NO_CAPACITY_LIMIT,
  NOT_A_CLONE,
  type PolicyFields,
  readPolicy,
  readRoom,
  roomIdOf,
  secretKeyToJwk,
  signKeyLog,
  signPolicy,
  signRoom,
  unwrap,
} from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { DEMO_POWER } from './power.js';

/** A key pair. */
export interface DemoKey {
  readonly secretKey: Uint8Array;
  readonly publicKey: Uint8Array;
}

/** A simulated hop: its key, pathway, place and how it measures. */
export interface DemoHop {
  readonly name: string;
  readonly key: DemoKey;
  readonly pathway: number;
  /** §3.2: 1 edge, 2 interior. */
  readonly place: 1 | 2;
  /** C5.2 class tag; 0 for an unmetered hop. */
  readonly class: number;
  /** Energy per byte it sends, nanojoules (before noise): the power model's (`power.ts`). */
  readonly nanojoulesPerByte: number;
  /** Fixed power, watts (idle draw of the hop's share of hardware). */
  readonly idleWatts: number;
  /** Its media bytes sent, as a share of those its pathway delivers (1 for an edge hop). */
  readonly share: number;
}

/** What {@link setupDemo} wrote. */
export interface DemoSetup {
  readonly dir: string;
  readonly configPath: string;
  readonly policy: PolicyFields;
  readonly policyBytes: Uint8Array;
  readonly roomBytes: Uint8Array;
  readonly keyLogBytes: Uint8Array;
  readonly roomId: Uint8Array;
  readonly steering: DemoKey;
  readonly hops: readonly DemoHop[];
  /** `http://host:port`, the base of the policy's URIs. */
  readonly base: string;
}

/** Options of {@link setupDemo}. */
export interface DemoSetupOptions {
  readonly host?: string;
  readonly port: number;
  /** P, ms (default 2000). */
  readonly periodMs?: number;
  /** W in periods (default 3). */
  readonly windowPeriods?: number;
  /** Store path (default `<dir>/steering.sqlite`). */
  readonly storePath?: string;
  /**
   * `false`: the config turns the per-client budgets off (a load test from one address);
   * default: the server's budgets.
   */
  readonly budgets?: boolean;
  /** The capacity of `cdn-b`, sessions (default 50 000). */
  readonly capacity?: number;
  /** The policy's TTL, s (default 10). */
  readonly ttlS?: number;
}

function newKey(): DemoKey {
  const secretKey = new Uint8Array(randomBytes(32));
  return { secretKey, publicKey: nodeBackend.publicKey(secretKey) };
}

function writeKey(path: string, key: DemoKey): void {
  writeFileSync(path, `${JSON.stringify(secretKeyToJwk(key.secretKey, nodeBackend))}\n`, {
    mode: 0o600,
  });
  chmodSync(path, 0o600);
}

/**
 * Writes a fresh demo into `dir` (its previous demo files and store removed): the keys, the room,
 * the key log head, the policy and `config.json`, which `wai-steer serve --config` reads.
 */
export function setupDemo(dir: string, options: DemoSetupOptions): DemoSetup {
  const host = options.host ?? '127.0.0.1';
  const periodMs = options.periodMs ?? 2000;
  mkdirSync(join(dir, 'keys'), { recursive: true });
  for (const f of ['steering.sqlite', 'steering.sqlite-wal', 'steering.sqlite-shm']) {
    rmSync(join(dir, f), { force: true });
  }
  const authority = newKey();
  const origin = newKey();
  const steering = newKey();
  // Three pathways: two of the content description and a clone of the second through another
  // host. cdn-a is the incumbent CDN, the policy's `initial` pathway (where players stay without
  // energy steering), and the dearer: its hops' power (`power.ts`, docs/energy.md) is an older
  // generation's. Figures differ by class too: cdn-a's hops state model-based figures (rank 2),
  // cdn-b's on-chip counter readings (rank 1), so cdn-b comes first whatever the figures (§6.2);
  // the clone's interior hop is unmetered (§5.4), so the clone comes last.
  const hop = (name: string, pathway: number, place: 1 | 2, cls: number): DemoHop => ({
    name,
    key: newKey(),
    pathway,
    place,
    class: cls,
    ...DEMO_POWER[name]!,
  });
  const hops: DemoHop[] = [
    hop('cdn-a-edge', 0, 1, 2),
    hop('cdn-a-shield', 0, 2, 2),
    hop('cdn-b-edge', 1, 1, 4),
    hop('cdn-b-shield', 1, 2, 4),
    hop('cdn-b-east-edge', 2, 1, 2),
    hop('cdn-b-east-shield', 2, 2, 0),
  ];
  const base = `http://${host.includes(':') ? `[${host}]` : host}:${options.port}`;

  const roomBytes = signRoom(
    { authority: authority.publicKey, origin: origin.publicKey, name: 'WAI steering demo' },
    authority.secretKey,
    { backend: nodeBackend },
  );
  const room = unwrap(readRoom(roomBytes));
  const roomId = roomIdOf(room, nodeBackend);

  const energy = [2, 3, 4, 5].map((c) => `energy/${CLASS_LABEL[c]}`);
  const entries: KeyLogEntry[] = [
    { key: authority.publicKey, status: 1, may_sign: ['live/room', ...energy].sort() },
    { key: steering.publicKey, status: 1, may_sign: ['live/steer', ...energy].sort() },
    ...hops.map((h) => ({
      key: h.key.publicKey,
      status: 1,
      may_sign: (h.class === 0
        ? ['live/hop']
        : ['live/hop', `energy/${CLASS_LABEL[h.class]}`]
      ).sort(),
    })),
  ];
  entries.sort((x, y) => compareBytes(x.key, y.key));
  const keyLogBytes = signKeyLog(
    { origin: origin.publicKey, seq: 0n, prev: new Uint8Array(32), entries },
    origin.secretKey,
    { backend: nodeBackend },
  );

  const P = BigInt(periodMs) * 1000n;
  const hopsOf = (p: number) =>
    hops.filter((h) => h.pathway === p).map((h) => ({ key: h.key.publicKey, place: h.place }));
  const policy: PolicyFields = {
    room: roomId,
    signer: authority.publicKey,
    period_us: P,
    window_us: BigInt(options.windowPeriods ?? 3) * P,
    lag_us: P / 4n,
    basis: 1,
    floor: 1,
    latency_ceiling_ms: 250,
    min_buffer_ms: 4000,
    hysteresis_ppm: 50_000,
    ttl_s: options.ttlS ?? 10,
    min_ttl_s: 4,
    flags: 1,
    // §8.2: the initial pathway is the one a client with no report is first placed on; the
    // incumbent, where players would stay without steering (the energy account's baseline).
    initial: 0,
    tiers: [800_000n, 2_500_000n, 6_000_000n],
    server_uri: `${base}/steer`,
    reload_uri: `${base}/steer/reload`,
    decision_uri: `${base}/decisions/`,
    pathways: [
      {
        id: 'cdn-a',
        base: NOT_A_CLONE,
        host: '',
        params: [],
        top_tier: 2,
        latency_ms: 40,
        capacity: NO_CAPACITY_LIMIT,
        min_share_ppm: 0,
        hops: hopsOf(0),
      },
      {
        id: 'cdn-b',
        base: NOT_A_CLONE,
        host: '',
        params: [],
        top_tier: 2,
        latency_ms: 55,
        capacity: options.capacity ?? 50_000,
        min_share_ppm: 100_000,
        hops: hopsOf(1),
      },
      {
        id: 'cdn-b-east',
        base: 1,
        host: 'east.cdn-b.example',
        params: [{ name: 'region', value: 'us-east' }],
        top_tier: 2,
        latency_ms: 70,
        capacity: NO_CAPACITY_LIMIT,
        min_share_ppm: 50_000,
        hops: hopsOf(2),
      },
    ],
  };
  const policyBytes = signPolicy(policy, authority.secretKey, { backend: nodeBackend });
  unwrap(readPolicy(policyBytes));

  writeFileSync(join(dir, 'room.wrd'), roomBytes);
  writeFileSync(join(dir, 'key-log.wkl'), keyLogBytes);
  writeFileSync(join(dir, 'policy.wsp'), policyBytes);
  writeKey(join(dir, 'keys', 'authority.jwk'), authority);
  writeKey(join(dir, 'keys', 'origin.jwk'), origin);
  writeKey(join(dir, 'keys', 'steering.jwk'), steering);
  for (const h of hops) writeKey(join(dir, 'keys', `${h.name}.jwk`), h.key);
  const config = {
    room: 'room.wrd',
    key_log: 'key-log.wkl',
    policy: 'policy.wsp',
    signing_key: 'keys/steering.jwk',
    listen: { host, port: options.port },
    // The demo makes a fresh room: its store is created at the first start.
    store: { path: options.storePath ?? 'steering.sqlite', synchronous: 'normal', create: true },
    retention: { records: '1d', decisions: '1d' },
    sessions: { grace: '10s' },
    ...(options.budgets === false
      ? { budget: { requests: { rate: 0 }, sessions: { rate: 0 } } }
      : {}),
  };
  const configPath = join(dir, 'config.json');
  writeFileSync(configPath, `${JSON.stringify(config, null, 2)}\n`);
  return {
    dir,
    configPath,
    policy,
    policyBytes,
    roomBytes,
    keyLogBytes,
    roomId,
    steering,
    hops,
    base,
  };
}

/** The policy digest (§3.4) of a demo. */
export function demoPolicyDigest(setup: DemoSetup): Uint8Array {
  return digestOf(unwrap(readPolicy(setup.policyBytes)), nodeBackend);
}
