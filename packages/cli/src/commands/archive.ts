import type { Command } from '../internal/command.js';
import { UserError } from '../internal/errors.js';
import { type Exported, exportFromStore, spanOf } from '../internal/export.js';
import { statementWords } from '../internal/export-energy.js';
import { exportFromUrl } from '../internal/export-url.js';
import { parseHexKey } from '../internal/keys.js';
import { graceSeconds } from './audit.js';

export const archiveExport: Command = {
  name: ['archive', 'export'],
  summary: "Export a server's decisions over a span as an archive (from its store, or over HTTP).",
  usage: [
    'wai-steer archive export --config FILE --out DIR [--from T] [--to T] [--room-id HEX]',
    'wai-steer archive export --url SERVER --room-id HEX --out DIR [--from T] [--to T] [--grace 10s]',
  ],
  options: {
    config: {
      type: 'string',
      arg: 'FILE',
      description: "the server's config: its store is read (offline)",
    },
    url: { type: 'string', arg: 'SERVER', description: 'a running server, read over HTTP' },
    'room-id': {
      type: 'string',
      arg: 'HEX',
      description: 'the room (required with --url): another room is an error',
    },
    from: {
      type: 'string',
      arg: 'T',
      description: 'from this instant: room-clock µs, an RFC 3339 time, now, now-1h',
    },
    to: { type: 'string', arg: 'T', description: 'before this instant' },
    out: {
      type: 'string',
      arg: 'DIR',
      description: 'the archive directory to write',
      required: true,
    },
    grace: {
      type: 'string',
      arg: 'DURATION',
      description: "with --url: the server's session grace, when it does not publish it",
    },
  },
  description: `
Writes the archive of docs/audit.md: archive.json, room.wrd, key-log.wkl (when the room names an
origin), and the frames of policies.bin, records.bin and decisions.bin (in ascending t), for the
decisions with --from <= t < --to (default: all; a span that ends after now ends now), and the
decision log: checkpoint (the latest checkpoint as served, once one holds every decision of the
archive: waited for up to the log's max_delay when the span ends now) and log-entries.bin (its
entries 0 … size − 1, 40 bytes each). records.bin holds every record of the span's hops (those
whose span meets [--from, --to), in ascending start; the energy account reads them all), then the
records the decisions name outside it. energy-statement is the server's signed statement of the
energy account over the archive's span of whole periods (docs/audit.md, The energy account):
signed here with the config's steering key with --config (fetched from the running server when
the key cannot be read here), as GET /energy/statement serves it with --url.

With --config it reads the server's store directly (the server may be running: the store is
opened beside it). With --url it reads the server's listing by time (GET /decisions), then each
decision at its URI, the policies it names, the records of the span (GET /records) and those the
decisions name, and the room's descriptor and key log head, pinned to --room-id. A record the
server does not give is left out (the audit then refuses the decisions naming it,
record_missing).`,
  async run(ctx) {
    const config = ctx.optional('config');
    const url = ctx.optional('url');
    if ((config === undefined) === (url === undefined)) {
      throw new UserError('archive export: give --config FILE or --url SERVER (one of them)');
    }
    const span = spanOf(ctx.optional('from'), ctx.optional('to'));
    const out = ctx.path(ctx.string('out'));
    const roomText = ctx.optional('room-id');
    const roomId = roomText === undefined ? undefined : parseHexKey(roomText, '--room-id');
    let done: Exported;
    try {
      done = await run(url, config, out, span, roomId, ctx.optional('grace'), (p) => ctx.path(p));
    } catch (e) {
      // The archive's own rule (decisions in ascending t), broken by what was read.
      if (e instanceof Error && e.name === 'ArchiveError') {
        throw new UserError(`archive export: ${e.message}`);
      }
      throw e;
    }
    const log =
      done.log.origin === undefined
        ? `; no decision log (${done.log.why})`
        : `, the decision log ${done.log.origin} at size ${done.log.size}${done.log.uncovered > 0 ? ` (${done.log.uncovered} decisions not in its latest checkpoint)` : ''}`;
    const listed =
      done.unlisted === true ? ' (the server lists no records: only those the decisions name)' : '';
    ctx.io.stderr.write(
      `wai-steer: archive of room ${done.room} in ${out}: ${done.decisions} decisions, ${done.policies} policies, ${done.records} records${listed}${done.missing > 0 ? ` (${done.missing} named records not given)` : ''}${log}${statementWords(done.energy)}\n`,
    );
    return 0;
  },
};

/** The export `--url` or `--config` asks for. */
async function run(
  url: string | undefined,
  config: string | undefined,
  out: string,
  span: ReturnType<typeof spanOf>,
  roomId: Uint8Array | undefined,
  grace: string | undefined,
  path: (p: string) => string,
): Promise<Exported> {
  if (url !== undefined) {
    if (roomId === undefined) throw new UserError('archive export: --url needs --room-id HEX');
    return exportFromUrl(url, out, span, {
      roomId,
      ...(grace === undefined ? {} : { graceS: graceSeconds(grace) }),
    });
  }
  if (grace !== undefined) {
    throw new UserError("archive export: --grace goes with --url (the config states the server's)");
  }
  return exportFromStore(path(config!), out, span, roomId === undefined ? {} : { roomId });
}
