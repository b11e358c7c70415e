/**
 * The steering engine's requests and results. A result is what happened, never how a door
 * (HTTP, a test, a console) shows it: no status, no header.
 */
import type { RoomContext } from '@wai-steering/verifier';
import type { CryptoBackend, DecisionFields, HopRecord, Policy } from '@wai-steering/wire';
import type { HorizonRefusal } from '../guard/horizon.js';
import type { SessionMac } from '../guard/session-mac.js';
import type { Health } from '../health.js';
import type { LiveOptions } from '../live/capacity.js';
import type { CapacityReport, ReportRefusal } from '../live/report.js';
import type { Metrics } from '../metrics.js';
import type { DecisionPage, SteeringStore } from '../store/store.js';

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
  /** How long a loaded group commit waits for more (ms; `store.commit_delay`); 0 by default. */
  readonly commitDelayMs?: number;
  /** The room clock: µs since the epoch (default {@link monotonicClock}). */
  readonly clock?: () => bigint;
  /** `fast` (default): the server's encoder (`encode.ts`); `wire`: wire's `signDecision`. */
  readonly encoder?: 'fast' | 'wire';
  /** Where the engine counts (a fresh {@link Metrics} by default). */
  readonly metrics?: Metrics;
  /** Live capacity from the sites (`docs/live-policy.md`); off when absent. */
  readonly live?: EngineLiveOptions;
  /** Mints and checks sessions (`guard/session-mac.ts`); a secret of this process by default. */
  readonly sessionMac?: SessionMac;
  /** The records' horizon (`guard/horizon.ts`), ms; defaults 1 min ahead, 7 d, 4 per period. */
  readonly horizon?: {
    readonly maxAheadMs: number;
    readonly retentionMs: number;
    readonly maxPerPeriod: number;
  };
  /** Degraded state (`health.ts`); one of its own by default. */
  readonly health?: Health;
  /**
   * The newest instants the store held at start (µs): retention never deletes a decision or
   * record newer than the newest kept minus its retention.
   */
  readonly newest?: {
    readonly decision?: bigint | undefined;
    readonly record?: bigint | undefined;
  };
  /** Told of each decision made and each record posted (the operator console's activity). */
  readonly observer?: EngineObserver;
  /**
   * Whether the engine opens starting: it declines decisions until {@link SteeringEngine.ready}
   * (the server rebuilds the session table first: `rebuild.ts`); ready at once by default.
   */
  readonly starting?: boolean;
  /**
   * How far ahead of the room clock an operator's rotation is put in force, µs, so that every
   * instance of a shared store has it before it applies (`policy-in-force.ts`); 0 by default.
   */
  readonly rotationLeadUs?: bigint;
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

/** Live capacity: which pathways take live values, the thresholds, the clock skew allowed. */
export interface EngineLiveOptions extends LiveOptions {
  /** How far ahead of the room clock a report's `t` may be (µs; default 5 s). */
  readonly maxAheadUs?: bigint;
  /** How far after its `t` a report's `expires` may be (µs; default 10 periods of the policy). */
  readonly maxExpiryUs?: bigint;
}

/** A policy put in force (§3): by the operator, or signed by the server from live capacity. */
export interface PolicyRotated {
  readonly kind: 'rotated';
  readonly by: 'operator' | 'live';
  /** Its digest (§3.4), which decisions from now on name. */
  readonly digest: Uint8Array;
  /** The digest of the policy it replaced. */
  readonly previous: Uint8Array;
  /** Whether the pathways' IDs changed, so that sessions moved to new indices. */
  readonly remapped: boolean;
  /**
   * The instant from which it is in force, room clock µs: now, or a lead ahead for an operator's
   * rotation on a shared store (`policy-in-force.ts`); decisions before it name the one before.
   */
  readonly from: bigint;
}

/** A site's capacity report (`POST /capacity`): taken, ignored as older, or refused. */
export type CapacityResult =
  | {
      readonly kind: 'report';
      /** `false`: no newer than the report held for its hop (a replay), and ignored. */
      readonly taken: boolean;
      readonly report: CapacityReport;
      /** The policy the report made the server sign, when it did. */
      readonly rotated?: PolicyRotated;
    }
  | ({ readonly kind: 'report_refused' } & ReportRefusal)
  | { readonly kind: 'capacity_off' }
  | Overloaded
  | StoreUnavailable;

/** A steering request (§4): its target, its `CMCD-Request` header, and the time of deciding. */
export interface DecideRequest {
  /** The request target as received (origin-form or absolute-form); its query is read (§4.1). */
  readonly target: string;
  /** The `CMCD-Request` header's value (§4.4), its field lines combined. */
  readonly cmcd?: string;
  /** `t` of the decision, room clock µs; the engine's clock by default. */
  readonly t?: bigint;
  /**
   * The session the door read from the target and checked (`readSession`), so that it spends the
   * new-session budget first (`guard/budget.ts`); `null`: none, a new one is minted. Absent: the
   * engine reads it.
   */
  readonly session?: Uint8Array | null;
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

/**
 * The store cannot keep what the engine would serve now (§8.4: a party holding a manifest must
 * find its decision): the store file was removed or replaced while the server runs (`file`,
 * until an operator acts), or the write failed (`commit`, as long as the store is down).
 */
export interface StoreUnavailable {
  readonly kind: 'store_unavailable';
  /** `query`: a read of the store failed (it does not answer, for now). */
  readonly cause: 'file' | 'commit' | 'query';
  readonly why: string;
}

/**
 * The store keeps a row under the digest asked for that does not rebuild it: damage (altered
 * inside the database), never an absence.
 */
export interface StoreDamaged {
  readonly kind: 'store_damaged';
  readonly what: 'decision' | 'record' | 'policy';
}

export type DecideResult = Steered | Overloaded | StoreUnavailable;

/** A per-hop record accepted (companion C5) and durable. */
export interface RecordStored {
  readonly kind: 'stored';
  /** Its digest (C1). */
  readonly digest: Uint8Array;
  /** Whether it was new (`false`: the store held it already). */
  readonly inserted: boolean;
  readonly record: HopRecord;
  /** Why no decision will name it, when none will (its hop is on no pathway, say). */
  readonly unused?: string;
}

/** A per-hop record refused: companion C7's reason and where. */
export interface RecordRefused {
  readonly kind: 'refused';
  readonly reason: string;
  readonly where: Readonly<Record<string, unknown>>;
  /** The refusal in words (the reader's, or the rule's). */
  readonly message?: string;
}

/** A per-hop record outside the records' horizon (`guard/horizon.ts`): a server refusal. */
export interface RecordOutside {
  readonly kind: 'outside';
  readonly refusal: HorizonRefusal;
}

export type IngestResult =
  | RecordStored
  | RecordRefused
  | RecordOutside
  | Overloaded
  | StoreUnavailable;

/** A read by digest. */
export type ReadResult =
  | { readonly kind: 'found'; readonly bytes: Uint8Array }
  | { readonly kind: 'absent' };

/** A read by digest from the store: also damaged, or the store unavailable. */
export type StoredRead = ReadResult | StoreDamaged | StoreUnavailable;

/** A page of the listing by time, or why there is none. */
export type ListingResult =
  | ({ readonly kind: 'page' } & DecisionPage)
  | StoreDamaged
  | StoreUnavailable;

/** A page of `GET /records`: the records' bytes, and the cursor of the next page. */
export type RecordListingResult =
  | {
      readonly kind: 'records';
      readonly records: readonly Uint8Array[];
      /** The `start` of the page's last records when more follow; `null` after the last page. */
      readonly next: bigint | null;
    }
  | StoreDamaged
  | StoreUnavailable;

/** The key log head of a room: also absent when the room names no origin (no key log). */
export type KeyLogResult = ReadResult | { readonly kind: 'no_key_log' };
