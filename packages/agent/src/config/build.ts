/**
 * What a `hop.yaml` describes, built: the files it names read (the room, its key log, the hop's
 * key, the policy that gives P and L; {@link readHopMaterials}), its sources built
 * (`sources.ts`), and the agent made of them ({@link createHopAgent}), with an edge hop's
 * capacity reports. Paths are relative to the file's directory.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { readStrictJson } from '@wai-steering/config-text';
import type { RoomContext } from '@wai-steering/verifier';
import { readPolicy } from '@wai-steering/wire';
import { HopAgent, type HopAgentOptions } from '../agent/agent.js';
import type { CutRecord } from '../agent/record.js';
import { CapacityReporter } from '../capacity.js';
import { type HopKey, hopKeyFromJwk, openHopRoom } from '../keys.js';
import { AgentConfigError } from '../types.js';
import type { HopConfig } from './schema.js';
import { energySourceOf, type ResolvePath, trafficSourceOf } from './sources.js';

/** A path of the configuration, absolute: relative ones are from its file's directory. */
function resolverOf(c: HopConfig): ResolvePath {
  return (p) => (isAbsolute(p) ? p : resolve(c.baseDir, p));
}

function readFile(file: string, what: string): Uint8Array {
  try {
    return new Uint8Array(readFileSync(file));
  } catch (e) {
    throw new AgentConfigError(
      `${what} ${file}: cannot read it (${(e as NodeJS.ErrnoException).code ?? e})`,
    );
  }
}

/** What {@link readHopMaterials} read. */
export interface HopMaterials {
  readonly room: RoomContext;
  readonly key: HopKey;
  readonly period: bigint;
  readonly lag: bigint | undefined;
}

/** Reads the room, key log, key and policy a configuration names; checks the room verifies. */
export function readHopMaterials(c: HopConfig): HopMaterials {
  const abs = resolverOf(c);
  const room = openHopRoom(
    readFile(abs(c.room), 'room'),
    c.keyLog === null ? null : readFile(abs(c.keyLog), 'key log'),
  );
  const keyPath = abs(c.key);
  const read = readStrictJson(new TextDecoder().decode(readFile(keyPath, 'key')));
  if (!read.ok) throw new AgentConfigError(`key ${keyPath}: not a JWK: ${read.problem}`);
  const jwk = read.value;
  const key = hopKeyFromJwk(jwk, `key ${keyPath}`);
  let period = c.period;
  let lag = c.lag;
  if (c.policy !== undefined) {
    const p = readPolicy(readFile(abs(c.policy), 'policy'));
    if (!p.ok)
      throw new AgentConfigError(`policy ${abs(c.policy)}: does not read (${p.refusal.reason})`);
    period ??= p.value.period_us;
    lag ??= p.value.lag_us;
  }
  return { room, key, period: period!, lag };
}

/** Builds the agent a configuration describes (reading its files), with overrides. */
export function createHopAgent(c: HopConfig, overrides: Partial<HopAgentOptions> = {}): HopAgent {
  const abs = resolverOf(c);
  const m = readHopMaterials(c);
  const cap = c.capacity;
  const reporter =
    cap === undefined
      ? undefined
      : new CapacityReporter({
          key: m.key,
          roomId: m.room instanceof Uint8Array ? m.room : m.room.roomId,
          pathway: cap.pathway,
          slots: cap.slots,
          // Soft state for three periods by default: one lost report does not age a site out.
          expiresUs: cap.expires ?? 3n * m.period,
          windowUs: m.period,
          ...(cap.computingMs === undefined ? {} : { computingMs: cap.computingMs }),
          ...(cap.networkMs === undefined ? {} : { networkMs: cap.networkMs }),
          servers: c.servers,
        });
  return new HopAgent({
    room: m.room,
    key: m.key,
    period: m.period,
    ...(m.lag === undefined ? {} : { lag: m.lag }),
    energy: energySourceOf(c.energy, abs),
    traffic: trafficSourceOf(c.traffic, abs),
    servers: c.servers,
    spool: abs(c.spool),
    ...(c.delivery.cutDelay === undefined ? {} : { cutDelay: c.delivery.cutDelay }),
    backoff: {
      initialMs: Number(c.delivery.backoff.initial / 1000n),
      maxMs: Number(c.delivery.backoff.max / 1000n),
    },
    backfill: c.delivery.backfill,
    keep: c.delivery.keep,
    ...(reporter === undefined
      ? {}
      : {
          onRecord: (rec: CutRecord) => {
            // A period whose traffic is unknown states no sessions: no report rather than a
            // capacity as if nobody were served.
            if (rec.trafficUnknown === undefined) {
              void reporter.report(rec.span.end, rec.fields.sessions);
            }
          },
        }),
    ...overrides,
  });
}
