/**
 * The store, opened as the server opens it at start (`openConfiguredStore`: a missing, damaged or
 * read-only SQLite file, an unreachable PostgreSQL, a schema newer than the code), never
 * created; then the clock against what it holds (the server's `checkClock`), the key log head
 * against the newest it kept (`checkStoredHead`), and the records of the last hour, for the
 * hops' checks, with the last record of each hop that has none in it.
 */
import type { EvidenceRecord } from '@wai-steering/evidence';
import {
  ConfigError,
  checkClock,
  checkStoredHead,
  type Materials,
  openConfiguredStore,
  type ServerConfig,
  type SteeringStore,
} from '@wai-steering/server';
import { digestOf, readHopRecord, toHex } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { selfName } from '../self.js';
import type { Report } from './report.js';

/** How far back the records are read: the hops' last records within it are named. */
export const LOOKBACK_US = 3_600_000_000n;
/** A bound on the records read (an hour of 2 s periods is 1 800 a hop). */
const MAX_RECORDS = 500_000;

function describe(e: unknown): string {
  return e instanceof ConfigError
    ? e.issues.join('; ')
    : e instanceof Error
      ? e.message
      : String(e);
}

/**
 * The fix of a PostgreSQL store that does not open: run as the database's user when PostgreSQL
 * refused this one by peer authentication (a socket connection as another system user, root
 * checking a deployment: `sudo -u wai-steering wai-steer doctor --config …`), else check the
 * server and the URL.
 */
export function postgresFix(message: string, configPath = '…', self = selfName()): string {
  const peer = /Peer authentication failed for user "?([^"\s]+)"?/.exec(message);
  if (peer !== null) {
    const user = peer[1]!;
    return `run doctor as the system user the server runs as, ${user} (PostgreSQL lets a system user connect by its socket as the database user of the same name alone): sudo -u ${user} ${self} doctor --config ${configPath}`;
  }
  return "check that PostgreSQL runs and that store.url's user, host, port and database are right (`psql` with the same URL)";
}

/** Opens the store without creating it; `undefined` when it cannot be opened (reported). */
async function open(
  config: ServerConfig,
  report: Report,
  configPath: string | undefined,
): Promise<SteeringStore | undefined> {
  try {
    return await openConfiguredStore({ ...config, store: { ...config.store, create: false } });
  } catch (e) {
    const what = describe(e);
    if (/does not exist/.test(what)) {
      if (config.store.create) {
        report.note(
          'store',
          `${config.store.path} does not exist yet: the server creates it at its first start (store.create: true)`,
        );
      } else {
        report.problem(
          'store',
          what,
          'start the server once with `wai-steer serve --config … --init` to create it; if it existed, restore it from its backup',
        );
      }
    } else if (config.store.url !== undefined) {
      report.problem('store', what, postgresFix(what, configPath));
    } else {
      report.problem(
        'store',
        what,
        'restore the store from its backup, or fix its file as the line says',
      );
    }
    return undefined;
  }
}

/**
 * Checks the store and returns the records of the last hour (`undefined` when it does not
 * open). `now` is the room clock, µs.
 */
export async function checkStore(
  config: ServerConfig,
  m: Materials | undefined,
  now: bigint,
  report: Report,
  configPath?: string,
): Promise<EvidenceRecord[] | undefined> {
  const store = await open(config, report, configPath);
  if (store === undefined) return undefined;
  try {
    report.ok(
      'store',
      config.store.url !== undefined
        ? "PostgreSQL answers, its schema is this server's"
        : `${config.store.path} opens and checks`,
    );
    const newest = (await store.newest?.(now)) ?? { decision: undefined, record: undefined };
    try {
      checkClock(now, newest, { ...config.time });
      report.ok('clock', "this machine's clock agrees with what the store holds");
    } catch (e) {
      report.problem(
        'clock',
        describe(e),
        'set the clock right (NTP: systemd-timesyncd or chrony); if it is right, start once with `wai-steer serve --trust-clock`',
      );
    }
    const head = m?.room.keyLog;
    if (head !== undefined) {
      try {
        const warning = await checkStoredHead(store, { head, digest: digestOf(head) }, nodeBackend);
        if (warning !== undefined) {
          report.warning(
            'key log',
            warning,
            'nothing, if the origin did publish the heads between',
          );
        }
      } catch (e) {
        report.problem(
          'key log',
          describe(e),
          'put the newest head the origin published at key_log',
        );
      }
    }
    const records: EvidenceRecord[] = [];
    for await (const r of store.recordsEndingAfter(now - LOOKBACK_US)) {
      const read = readHopRecord(r.bytes);
      if (read.ok) records.push({ record: read.value, digest: r.digest });
      if (records.length >= MAX_RECORDS) break;
    }
    // A hop of the policy with no record in the last hour: its last record over the retention
    // (one pass, keeping the latest of each such hop), so that "7 hours ago" is said as such.
    const recent = new Set(records.map((r) => toHex(r.record.hop)));
    const missing = new Set(
      (m?.policy.pathways ?? []).flatMap((p) => p.hops.map((h) => toHex(h.key))),
    );
    for (const k of recent) missing.delete(k);
    if (missing.size > 0) {
      const older = new Map<string, EvidenceRecord>();
      const since = now - BigInt(config.retention.records) * 1000n;
      for await (const r of store.recordsEndingAfter(since < 0n ? 0n : since)) {
        const key = toHex(r.hop);
        if (!missing.has(key) || r.end > now - LOOKBACK_US) continue;
        const held = older.get(key);
        if (held !== undefined && held.record.end >= r.end) continue;
        const read = readHopRecord(r.bytes);
        if (read.ok) older.set(key, { record: read.value, digest: r.digest });
      }
      records.push(...older.values());
    }
    return records;
  } catch (e) {
    report.problem(
      'store',
      `reading it failed: ${describe(e)}`,
      "see the server's log; restore the store from its backup if it is damaged",
    );
    return undefined;
  } finally {
    await store.close();
  }
}
