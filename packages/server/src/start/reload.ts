/**
 * The operator's changes without a restart (SIGHUP, `POST /admin/reload`): the key log file and
 * the policy file read again, and a key log head another instance kept. A head is taken only if
 * it moves forward from the one in use (companion C4: a greater `seq` whose `prev` is the digest
 * of the one in use, `guard/key-log.ts`); a policy of another room, or one that does not verify
 * or whose signer may not sign it, is refused, and what is in force stays.
 */
import { openRoom } from '@wai-steering/verifier';
import { bytesEqual, type CryptoBackend, digestOf, toHex } from '@wai-steering/wire';
import { ConfigError } from '../config/errors.js';
import type { ServerConfig } from '../config/read.js';
import type { SteeringEngine } from '../engine/engine.js';
import { RotationConflict } from '../engine/policy-in-force.js';
import type { PolicyRotated } from '../engine/types.js';
import { type Head, stepHead } from '../guard/key-log.js';
import { describeError } from '../health.js';
import { StoreUnavailableError } from '../store/store.js';
import { liveOptions, openRoomFrom, readBytes, readPolicyFile } from './materials.js';

/** What a reload put in force. */
export interface ReloadResult {
  /** The digest of the policy in force, hex: the new one when `changed` (from `from`). */
  readonly policy: string;
  /** Whether the policy file held another policy, now in force or from `from`. */
  readonly changed: boolean;
  /** Whether the key log file held a new head, now in use. */
  readonly keyLog: boolean;
  readonly warnings: readonly string[];
  /**
   * With `changed`, the instant from which the new policy is in force (room clock µs, decimal):
   * a lead ahead on a store shared by instances (`docs/live-policy.md`); `null` otherwise.
   */
  readonly from: string | null;
}

/**
 * A write of a reload to the store: a refusal of what was read (a check's `TypeError`, a
 * `ConfigError`, a rotation other instances overtook) stays what it is; anything else is the
 * store failing ({@link StoreUnavailableError}).
 */
async function kept<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (e) {
    if (e instanceof TypeError || e instanceof ConfigError || e instanceof RotationConflict)
      throw e;
    throw new StoreUnavailableError(`the store did not keep it: ${describeError(e)}`);
  }
}

export class Reloader {
  constructor(
    private readonly config: ServerConfig,
    private readonly engine: SteeringEngine,
    private readonly roomBytes: Uint8Array,
    private readonly backend: CryptoBackend,
  ) {}

  /** The head in use, with its digest. */
  private head(): Head | undefined {
    const head = this.engine.keyLog;
    return head === undefined ? undefined : { head, digest: digestOf(head, this.backend) };
  }

  /**
   * The key log file again: `true` when its head moved forward and is now in use, `false` when
   * the file holds the head in use; a {@link ConfigError} naming why a head is refused.
   */
  async keyLog(): Promise<boolean> {
    const { config, backend } = this;
    if (config.keyLog === null) return false;
    const bytes = readBytes(config.keyLog, 'key_log');
    const room = openRoomFrom(this.roomBytes, bytes, backend, config.keyLog);
    if (room.keyLog === undefined) return false;
    const current = this.head();
    if (current !== undefined) {
      const step = stepHead(
        current,
        { head: room.keyLog, digest: digestOf(room.keyLog, backend) },
        'refuse',
      );
      if (!step.take) {
        if (step.same) return false;
        throw new ConfigError([`key_log: the head in ${config.keyLog} was not taken: ${step.why}`]);
      }
    }
    await kept(() => this.engine.replaceRoom(room, bytes));
    return true;
  }

  /**
   * The policy file again: the rotation when it held another policy, now in force or from the
   * instant it says; `undefined` when it holds the one in force (or claimed to be).
   */
  async policy(): Promise<PolicyRotated | undefined> {
    const { config, engine } = this;
    const checked = readPolicyFile(config, engine.room, this.backend);
    // The file's policy in force already, or the template of the live policy in force.
    if (bytesEqual(checked.digest, engine.policies.templateDigest)) return undefined;
    if (config.live !== null) liveOptions(config, checked.policy); // its IDs still fit
    return kept(() => engine.policies.rotate(checked.bytes, 'operator'));
  }

  /** Both files again, the key log first (the policy is checked against its head). */
  async reload(): Promise<ReloadResult> {
    const keyLog = await this.keyLog();
    const rotated = await this.policy();
    return {
      policy: toHex(rotated?.digest ?? this.engine.policyDigest),
      changed: rotated !== undefined,
      keyLog,
      warnings: [],
      from: rotated === undefined ? null : rotated.from.toString(),
    };
  }

  /**
   * A key log head another instance kept: served and used from now on when it verifies for the
   * room and moves forward from the one in use; otherwise ignored.
   */
  adoptKeyLog(bytes: Uint8Array): void {
    const opened = openRoom(this.roomBytes, bytes, { backend: this.backend });
    if (!opened.ok || opened.value.keyLog === undefined) return;
    const current = this.head();
    if (current !== undefined) {
      const next = {
        head: opened.value.keyLog,
        digest: digestOf(opened.value.keyLog, this.backend),
      };
      if (!stepHead(current, next, 'refuse').take) return;
    }
    this.engine.replaceRoom(opened.value, bytes).catch((e: unknown) => {
      console.error(
        `wai-steering: a key log head from another instance was not adopted: ${describeError(e)}`,
      );
    });
  }
}
