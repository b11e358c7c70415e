/**
 * What a server serves under, read from its configuration's files and checked before anything
 * listens: the room and its key log head (§9.1 step 1), the policy (§3: it reads, is the room's,
 * its signature verifies and its signer may sign it, §3.5) and the steering key (§3.5: the room
 * authority or a `live/steer` key, not revoked). Every problem is a {@link ConfigError} naming the
 * field and what to fix.
 */
import { readFileSync } from 'node:fs';
import { readStrictJson } from '@wai-steering/config-text';
import { checkSigner, openRoom, type RoomContext } from '@wai-steering/verifier';
import {
  CLASS_LABEL,
  type CryptoBackend,
  digestOf,
  jwkToKeyPair,
  type Policy,
  readKeyLog,
  readPolicy,
  toHex,
} from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { ConfigError, fsProblem } from '../config/errors.js';
import type { ServerConfig } from '../config/read.js';
import { type CheckedPolicy, checkPolicy } from '../engine/policy.js';
import type { EngineLiveOptions, EngineMaterials } from '../engine/types.js';
import { type Head, stepHead } from '../guard/key-log.js';
import type { SteeringStore } from '../store/store.js';

/** A file's bytes, or a {@link ConfigError} naming the field and why it cannot be read. */
export function readBytes(path: string, field: string): Uint8Array {
  try {
    return new Uint8Array(readFileSync(path));
  } catch (e) {
    throw new ConfigError([`${field}: cannot read ${path}: ${fsProblem(e)}`]);
  }
}

/** The session secret (`sessions.secret`): a file of at least 16 bytes. */
export function readSecret(path: string): Uint8Array {
  const bytes = readBytes(path, 'sessions.secret');
  if (bytes.length < 16) {
    throw new ConfigError([
      `sessions.secret: ${path} holds ${bytes.length} bytes; a session secret is at least 16 random bytes`,
    ]);
  }
  return bytes;
}

/** The room with a key log head, or a {@link ConfigError} naming the file at fault. */
export function openRoomFrom(
  roomBytes: Uint8Array,
  keyLogBytes: Uint8Array | null,
  backend: CryptoBackend,
  keyLogPath?: string | null,
): RoomContext {
  const opened = openRoom(roomBytes, keyLogBytes, { backend });
  if (opened.ok) return opened.value;
  const r = opened.refusal;
  // A key log file that does not read is the file's fault, not the room's: say which file.
  if (r.where.magic === 'WKL1' && (r.reason === 'malformed' || r.reason === 'truncated')) {
    const at = `${r.where.field === undefined ? '' : ` at its ${r.where.field}`}${r.where.offset === undefined ? '' : `, offset ${r.where.offset}`}`;
    throw new ConfigError([
      `key_log: ${keyLogPath ?? 'the key log'} is not a key log head (WKL1): ${r.reason}${at} (give the file \`wai-steer keylog create\` or \`keylog add\` wrote)`,
    ]);
  }
  const field = r.where.magic === 'WKL1' || r.reason.startsWith('key_log') ? 'key_log' : 'room';
  throw new ConfigError([`${field}: the room does not verify (${r.reason}: ${r.message})`]);
}

/** What the server serves under, read and checked, with what the reading warned of. */
export interface Materials extends EngineMaterials {
  readonly warnings: string[];
}

/** What {@link checkMaterials} found: the materials when every check passed, and every problem. */
export interface CheckedMaterials {
  readonly materials?: Materials;
  /** Each problem, naming the field and what to fix; empty when `materials` is there. */
  readonly issues: readonly string[];
}

/**
 * Reads and checks the room, the key log, the policy and the steering key, each as far as the
 * others allow (a policy is checked against the room only when the room opens), so that every
 * problem is named at once: a missing key log and a steering key that is not a JWK are two
 * problems of one start, not one and then the other.
 */
export function checkMaterials(
  config: ServerConfig,
  backend: CryptoBackend = nodeBackend,
): CheckedMaterials {
  const issues: string[] = [];
  const attempt = <T>(step: () => T): T | undefined => {
    try {
      return step();
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      issues.push(...e.issues);
      return undefined;
    }
  };
  const roomBytes = attempt(() => readBytes(config.room, 'room'));
  const keyLogPath = config.keyLog;
  const keyLogBytes = keyLogPath === null ? null : attempt(() => readBytes(keyLogPath, 'key_log'));
  const room =
    roomBytes === undefined || keyLogBytes === undefined
      ? undefined
      : attempt(() => openRoomFrom(roomBytes, keyLogBytes, backend, keyLogPath));
  const checked =
    room === undefined
      ? attempt(() => void readPolicyAlone(config))
      : attempt(() => readPolicyFile(config, room, backend));
  const key = attempt(() => readSigningKey(config.signingKey, room, backend));
  if (issues.length > 0 || room === undefined || checked === undefined || key === undefined) {
    return { issues };
  }
  const { policy, bytes: policyBytes, digest: policyDigest } = checked;
  const materials: Materials = {
    room,
    roomBytes: roomBytes!,
    keyLogBytes: keyLogBytes!,
    policy,
    policyBytes,
    policyDigest,
    publicKey: key.publicKey,
    secretKey: key.secretKey,
    warnings: classWarnings(room, policy, key.publicKey),
  };
  return { materials, issues: [] };
}

/**
 * Reads and checks the room, the policy and the steering key ({@link checkMaterials}); a
 * {@link ConfigError} naming every problem. A key without some `energy/<label>` starts with a
 * warning: a decision stating a figure of that class would be refused `signer_not_authorised`.
 */
export function readMaterials(
  config: ServerConfig,
  backend: CryptoBackend = nodeBackend,
): Materials {
  const checked = checkMaterials(config, backend);
  if (checked.materials === undefined) throw new ConfigError(checked.issues);
  return checked.materials;
}

/**
 * §3.5: the steering key of `signing_key`, a secret JWK that may sign the room's decisions (when
 * the room could be opened; otherwise only the key itself is checked).
 */
function readSigningKey(path: string, room: RoomContext | undefined, backend: CryptoBackend) {
  const read = readStrictJson(new TextDecoder().decode(readBytes(path, 'signing_key')));
  if (!read.ok) throw new ConfigError([`signing_key: ${path}: ${read.problem}`]);
  const jwk = read.value;
  let pair: ReturnType<typeof jwkToKeyPair>;
  try {
    pair = jwkToKeyPair(jwk, backend);
  } catch (e) {
    throw new ConfigError([`signing_key: ${(e as Error).message}`]);
  }
  if (pair.secretKey === undefined) {
    throw new ConfigError(['signing_key: the JWK has no "d": a steering key must be a secret key']);
  }
  const badKey = room === undefined ? undefined : checkSigner(room, pair.publicKey);
  if (badKey !== undefined) {
    throw new ConfigError([
      `signing_key: ${toHex(pair.publicKey)} may not sign decisions of this room (${badKey.reason}, §3.5)`,
    ]);
  }
  return { publicKey: pair.publicKey, secretKey: pair.secretKey };
}

/** §3.5: the classes the room's hops may state (C5.4) that the steering key may not restate. */
function classWarnings(room: RoomContext, policy: Policy, publicKey: Uint8Array): string[] {
  if (room.keyLog === undefined) return [];
  const stated = new Set<number>();
  for (const p of policy.pathways) {
    for (const h of p.hops) {
      const entry = room.entries.get(toHex(h.key));
      for (const cls of [2, 3, 4, 5]) {
        if (entry?.may_sign.includes(`energy/${CLASS_LABEL[cls]}`)) stated.add(cls);
      }
    }
  }
  return [...stated]
    .sort()
    .filter((cls) => checkSigner(room, publicKey, [cls]) !== undefined)
    .map(
      (cls) =>
        `the steering key lacks energy/${CLASS_LABEL[cls]}: a decision stating a ${CLASS_LABEL[cls]} figure would be refused; the origin grants it energy/${CLASS_LABEL[cls]} beside live/steer in the key log's next head (docs/metering.md, "What the key log must grant")`,
    );
}

/** The configuration's policy file, checked against the room (`engine/policy.ts`). */
export function readPolicyFile(
  config: ServerConfig,
  room: RoomContext,
  backend: CryptoBackend,
): CheckedPolicy {
  const policyBytes = readBytes(config.policy, 'policy');
  const checked = checkPolicy(room, policyBytes, backend);
  if (checked.ok) return checked.value;
  notAPolicy(config.policy, policyBytes);
  throw new ConfigError([`policy: ${config.policy}: ${checked.problem}`]);
}

/** The policy file read without its room (which did not open): it is a `WSP1` at least. */
function readPolicyAlone(config: ServerConfig): void {
  const policyBytes = readBytes(config.policy, 'policy');
  notAPolicy(config.policy, policyBytes);
  const read = readPolicy(policyBytes);
  if (!read.ok) {
    throw new ConfigError([
      `policy: ${config.policy} is not a signed policy (WSP1): ${read.refusal.reason}`,
    ]);
  }
}

/** A policy config (YAML or JSON) named where its compiled WSP1 belongs: how to compile it. */
function notAPolicy(path: string, policyBytes: Uint8Array): void {
  if (readPolicy(policyBytes).ok) return;
  const text = new TextDecoder().decode(policyBytes.subarray(0, 256));
  const looksLikeConfig = /\.(ya?ml|json)$/i.test(path) || /^\s*(#|[a-z_]+\s*:|\{)/.test(text);
  if (looksLikeConfig && !text.startsWith('WSP1')) {
    throw new ConfigError([
      `policy: ${path} is a policy config, not a signed policy (WSP1): compile it with \`wai-steer policy compile ${path} --key KEY --out policy.wsp\` and name policy.wsp here`,
    ]);
  }
}

/** The engine's live options from the configuration: pathway IDs to indices, checked. */
export function liveOptions(
  config: ServerConfig,
  policy: Pick<Policy, 'pathways'>,
): EngineLiveOptions | undefined {
  const live = config.live;
  if (live === null) return undefined;
  const ids = policy.pathways.map((p) => p.id);
  const pathways = new Set<number>();
  for (const id of live.pathways === 'all' ? ids : live.pathways) {
    const i = ids.indexOf(id);
    if (i < 0) {
      throw new ConfigError([
        `live.pathways: "${id}" is no pathway of the policy (its pathways: ${ids.join(', ')})`,
      ]);
    }
    pathways.add(i);
  }
  return {
    pathways,
    capacityThresholdPpm: live.capacityThresholdPpm,
    latencyThresholdMs: live.latencyThresholdMs,
    maxAheadUs: BigInt(live.maxAhead) * 1000n,
    ...(live.maxExpiry === undefined || live.maxExpiry === null
      ? {}
      : { maxExpiryUs: BigInt(live.maxExpiry) * 1000n }),
  };
}

/**
 * The configured key log head against the newest one the store kept (`guard/key-log.ts`): a
 * warning, or a {@link ConfigError} when the head would move back.
 */
export async function checkStoredHead(
  store: SteeringStore,
  head: Head,
  backend: CryptoBackend,
): Promise<string | undefined> {
  let stored: Head | undefined;
  for (const bytes of (await store.keyLogHeads?.()) ?? []) {
    const read = readKeyLog(bytes);
    if (!read.ok) continue;
    if (stored === undefined || read.value.seq > stored.head.seq) {
      stored = { head: read.value, digest: digestOf(read.value, backend) };
    }
  }
  if (stored === undefined) return undefined;
  const step = stepHead(stored, head, 'warn');
  if (step.take) return step.warning;
  if (step.same) return undefined;
  throw new ConfigError([
    `key_log: the head is older than the one this store kept: ${step.why}; put the newest head back`,
  ]);
}
