/**
 * The steering engine's requests and results. A result is what happened, never how a door
 * (HTTP, a test, a console) shows it: no status, no header.
 */
import type { RoomContext } from '@wai-steering/verifier';
import type { CryptoBackend, DecisionFields, HopRecord, Policy } from '@wai-steering/wire';
import type { Metrics } from '../metrics.js';
import type { SteeringStore } from '../store/store.js';

/** What the engine serves under: the room, the policy and the steering key, read and checked. */
export interface EngineMaterials {
  readonly room: RoomContext;
  readonly roomBytes: Uint8Array;
  readonly keyLogBytes: Uint8Array | null;
  readonly policy: Policy;
  readonly policyBytes: Uint8Array;
  readonly policyDigest: Uint8Array;
  /** The steering key: its public key signs each decision (§3.5). */
  readonly publicKey: Uint8Array;
  readonly secretKey: Uint8Array;
}

/** What the engine needs: its materials, the store and its limits. */
export interface EngineOptions extends EngineMaterials {
  readonly store: SteeringStore;
  readonly backend: CryptoBackend;
  /** Grace after a decision's TTL during which its session still counts (ms). */
  readonly graceMs: number;
  readonly maxSessions: number;
  /** The most decisions and records awaiting their group commit. */
  readonly maxQueue: number;
  /** The room clock: µs since the epoch (default {@link monotonicClock}). */
  readonly clock?: () => bigint;
  /** `fast` (default): the server's encoder (`encode.ts`); `wire`: wire's `signDecision`. */
  readonly encoder?: 'fast' | 'wire';
  /** Where the engine counts (a fresh {@link Metrics} by default). */
  readonly metrics?: Metrics;
  /** Told of each decision made and each record posted (the operator console's activity). */
  readonly observer?: EngineObserver;
}

/** What a door that watches the engine is told; it changes nothing the engine does. */
export interface EngineObserver {
  /** A decision signed and durable, its manifest about to be served. */
  decided(fields: DecisionFields, digest: Uint8Array): void;
  /**
   * A record posted: new, a duplicate, or refused with companion C7's reason. `hop` is the
   * record's hop key, `null` when the bytes do not read as a record.
   */
  ingested(
    hop: Uint8Array | null,
    outcome: 'new' | 'duplicate' | { readonly refused: string },
    /** The record's span, when it was accepted. */
    span?: { readonly start: bigint; readonly end: bigint },
  ): void;
}

/** A steering request (§4): its target, its `CMCD-Request` header, and the time of deciding. */
export interface DecideRequest {
  /** The request target as received (origin-form or absolute-form); its query is read (§4.1). */
  readonly target: string;
  /** The `CMCD-Request` header's value (§4.4), its field lines combined. */
  readonly cmcd?: string;
  /** `t` of the decision, room clock µs; the engine's clock by default. */
  readonly t?: bigint;
}

/** The engine declined the work: it is closing, or a bound is reached. Try again later. */
export interface Overloaded {
  readonly kind: 'overloaded';
  readonly why: string;
}

/** A decision made, signed and durable, and the steering manifest that names it (§8.1). */
export interface Steered {
  readonly kind: 'manifest';
  /** The manifest's JSON text. */
  readonly body: string;
  /** The decision's digest (§7.3), served at the policy's `decision_uri`. */
  readonly digest: Uint8Array;
  /** The decision's fields, as signed. */
  readonly fields: DecisionFields;
}

export type DecideResult = Steered | Overloaded;

/** A per-hop record accepted (companion C5) and durable. */
export interface RecordStored {
  readonly kind: 'stored';
  /** Its digest (C1). */
  readonly digest: Uint8Array;
  /** Whether it was new (`false`: the store held it already). */
  readonly inserted: boolean;
  readonly record: HopRecord;
}

/** A per-hop record refused: companion C7's reason and where. */
export interface RecordRefused {
  readonly kind: 'refused';
  readonly reason: string;
  readonly where: Readonly<Record<string, unknown>>;
}

export type IngestResult = RecordStored | RecordRefused | Overloaded;

/** A read by digest. */
export type ReadResult =
  | { readonly kind: 'found'; readonly bytes: Uint8Array }
  | { readonly kind: 'absent' };

/** The key log head of a room: also absent when the room names no origin (no key log). */
export type KeyLogResult = ReadResult | { readonly kind: 'no_key_log' };
