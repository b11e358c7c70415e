/**
 * The record of a period, signed: a per-hop record (`WMH1`, companion C5.1) of a span, the hop's
 * traffic over it and the energy its source states, in the source's class; or the unmetered
 * marker (class 0, joules 0; C5.2) with the reason, when the span cannot be stated. Its digest
 * (C1) names its spool file.
 */
import { createHash } from 'node:crypto';
import { type HopRecordFields, signHopRecord } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import type { EnergySource } from '../energy/source.js';
import type { HopKey } from '../keys.js';
import { recordFileName } from '../spool/record-file.js';
import type { Span, Traffic } from '../types.js';

/** A record the agent cut. */
export interface CutRecord {
  readonly span: Span;
  readonly fields: HopRecordFields;
  readonly bytes: Uint8Array;
  /** The record's digest (companion C1), hex. */
  readonly digest: string;
  /** Its spool file name. */
  readonly name: string;
  /**
   * Why it is the unmetered marker, when it could not state the span: its energy source could not
   * (no reading at a boundary, a clock step), its traffic is unknown, or the spool could not be
   * written when the period was due.
   */
  readonly unmetered?: string;
  /** Why its traffic is unknown (the record then states none), when it is. */
  readonly trafficUnknown?: string;
}

/** Who signs a period's record, and what states its energy. */
export interface PeriodSigner {
  /** The room's id. */
  readonly room: Uint8Array;
  readonly key: HopKey;
  readonly energy: EnergySource;
}

/** What is known of a period when its record is signed. */
export interface PeriodStatement {
  readonly span: Span;
  /** Its traffic (none when it is unknown). */
  readonly traffic: Traffic;
  /** Its energy from a counter's readings, when they state it. */
  readonly counted?: bigint | undefined;
  /** Why the period cannot be stated, when it cannot: the record is the unmetered marker. */
  readonly why?: string | undefined;
  /** Why its traffic is unknown, when it is. */
  readonly trafficUnknown?: string | undefined;
}

/**
 * Signs the record of a period: its source's class and energy (a model's of the span and its
 * traffic, a counter's as counted), or the unmetered marker when `why` is given, or a counter
 * states no count, or there is no energy source.
 */
export function signPeriod(s: PeriodSigner, p: PeriodStatement): CutRecord {
  const { span, traffic, counted, why, trafficUnknown } = p;
  const e = s.energy;
  let cls = 0;
  let joules = 0n;
  if (why === undefined && e.kind === 'span') {
    cls = e.class;
    joules = e.energy(span, traffic);
  } else if (why === undefined && e.kind === 'counter' && counted !== undefined) {
    cls = e.class;
    joules = counted;
  }
  const fields: HopRecordFields = {
    room: s.room,
    hop: s.key.publicKey,
    start: span.start,
    end: span.end,
    sessions: Math.min(traffic.sessions, 0xffff_ffff),
    class: cls,
    joules,
    subscriber_us: traffic.subscriber_us,
    tracks: traffic.tracks,
  };
  const bytes = signHopRecord(fields, s.key.secretKey, { backend: nodeBackend });
  // Companion C1: the digest is SHA-256 over the bytes before `sig`.
  const digest = createHash('sha256')
    .update(bytes.subarray(0, bytes.length - 64))
    .digest('hex');
  return {
    span,
    fields,
    bytes,
    digest,
    name: recordFileName(span.start, digest),
    ...(cls === 0 && why !== undefined ? { unmetered: why } : {}),
    ...(trafficUnknown === undefined ? {} : { trafficUnknown }),
  };
}
