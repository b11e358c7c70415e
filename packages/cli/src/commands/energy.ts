/**
 * `wai-steer energy` (the energy account of a server or of an archive, as a table or its
 * canonical JSON) and `wai-steer energy verify` (a signed statement of it checked).
 */
import { energyTable } from '@wai-steering/auditor';
import { nowUs } from '@wai-steering/config-text';
import { canonicalJson, type EnergyAccountJson, type JsonValue } from '@wai-steering/energy';
import type { Command, Context } from '../internal/command.js';
import {
  accountFromArchive,
  accountFromServer,
  openStatementWith,
  type StatementKeys,
  urlOption,
} from '../internal/energy.js';
import { EXIT, UserError } from '../internal/errors.js';
import { readBytes } from '../internal/files.js';
import { parseHexKey } from '../internal/keys.js';
import { instantOption } from '../internal/time.js';

/** Prints the account: its canonical JSON with `--json`, else the table. */
function print(ctx: Context, account: EnergyAccountJson): void {
  ctx.out(
    ctx.flag('json') ? `${canonicalJson(account as unknown as JsonValue)}\n` : energyTable(account),
  );
}

export const energy: Command = {
  name: ['energy'],
  summary:
    'The energy account: what steering saved against the initial pathway, in both views, from a server or an archive.',
  usage: [
    'wai-steer energy --url SERVER --room-id HEX [--from T] [--to T] [--json]',
    'wai-steer energy --archive DIR [--room-id HEX] [--from T] [--to T] [--json]',
  ],
  options: {
    url: { type: 'string', arg: 'SERVER', description: 'a running server: GET /energy' },
    archive: {
      type: 'string',
      arg: 'DIR',
      description: 'an archive (wai-steer archive export): the account computed from it',
    },
    'room-id': {
      type: 'string',
      arg: 'HEX',
      description: 'the room (required with --url): another room is an error',
    },
    from: {
      type: 'string',
      arg: 'T',
      description:
        'the span from this instant (room-clock µs, an RFC 3339 time, now, now-1h): a multiple of P',
    },
    to: { type: 'string', arg: 'T', description: 'the span before this instant: a multiple of P' },
    json: {
      type: 'boolean',
      description: "print the account's JSON, canonical (RFC 8785), one line",
    },
  },
  description: `
The energy account (docs/energy.md) over the span [--from, --to) of whole periods of the policy's
P: for each pathway of the policy in force at --to, its usable and unusable periods, its energy
(Wh, kWh) and delivery (GB, or hours at the floor tier) over the usable ones, the average energy
a unit (attributional view) beside the marginal one (a least-squares fit of the periods' energy
on their delivery, with its 95 % interval, its idle power and r², or why it is null), and the
sessions the server placed there against those its hops served; then what steering saved
against the baseline, the policy's initial pathway, in both views, with its sign.

With --url it reads the server's GET /energy (its room checked against --room-id first); without
--from and --to the server's default span. With --archive it computes the account itself from
every record the archive holds, the policies in force as its decisions show them, its decisions
and its grace_s, as wai-steer audit does; without --from and --to, over the archive's span of
whole periods (docs/audit.md, The energy account: said on stderr). A span that is not whole
periods, or over which the policy changes its period, basis, initial pathway or a pathway's
hops, is refused with the instant to split it at.`,
  async run(ctx) {
    const url = ctx.optional('url');
    const archive = ctx.optional('archive');
    if ((url === undefined) === (archive === undefined)) {
      throw new UserError('energy: give --url SERVER or --archive DIR (one of them)');
    }
    const at = nowUs();
    const bound = (name: string): bigint | undefined => {
      const v = ctx.optional(name);
      return v === undefined ? undefined : instantOption(v, name, () => at);
    };
    const from = bound('from');
    const to = bound('to');
    if (from !== undefined && to !== undefined && to <= from) {
      throw new UserError('energy: --to must be after --from');
    }
    const roomText = ctx.optional('room-id');
    const roomId = roomText === undefined ? undefined : parseHexKey(roomText, '--room-id');
    if (url !== undefined) {
      if (roomId === undefined) throw new UserError('energy: --url needs --room-id HEX');
      print(ctx, await accountFromServer(urlOption(url), roomId, from, to));
      return EXIT.ok;
    }
    const got = await accountFromArchive(ctx.path(archive!), roomId, from, to);
    if (got.defaultSpan !== undefined) ctx.io.stderr.write(`wai-steer: ${got.defaultSpan}\n`);
    print(ctx, got.account);
    return EXIT.ok;
  },
};

export const energyVerify: Command = {
  name: ['energy', 'verify'],
  summary:
    "Check a signed statement of the energy account: the room's key signed it (exit 1 if not).",
  usage: [
    'wai-steer energy verify FILE --room-id HEX (--url SERVER | --archive DIR) [--json]',
    'wai-steer energy verify FILE --vkey VKEY … [--room-id HEX] [--json]',
  ],
  args: ['FILE'],
  options: {
    'room-id': {
      type: 'string',
      arg: 'HEX',
      description: 'the room whose keys may sign it, and whose account it must be',
    },
    url: {
      type: 'string',
      arg: 'SERVER',
      description: "with --room-id: the room's descriptor and key log from this server",
    },
    archive: {
      type: 'string',
      arg: 'DIR',
      description: "with --room-id: the room's descriptor and key log from this archive",
    },
    vkey: {
      type: 'string',
      arg: 'VKEY',
      description: 'a signed-note verifier key <name>+<key ID>+<key> that may sign it',
      multiple: true,
    },
    json: {
      type: 'boolean',
      description: 'print the account it states: its JSON, canonical, one line',
    },
  },
  description: `
Verifies a statement (the signed note GET /energy/statement answers, an archive's
energy-statement): a C2SP signed note whose text is "wai-steering energy statement v1" and the
account's canonical JSON, signed by the steering key under the decision log's origin. The keys
are the room's, as a checkpoint's are (docs/audit.md, The log): the authority and the key log's
live/steer keys that are not revoked, fetched from --url and pinned by --room-id, or read from
--archive (under its log's origin); or the --vkey keys given (as a witness names a log's key).
Then it prints the account it states as a table, or with --json its JSON.`,
  exitStatus: `
  0 the statement verifies; 1 it does not (no signature by a key of the room, or one that does not
  verify; one line);
  2 a usage or input error: a file that is not a statement, a room that does not verify (one line).`,
  async run(ctx) {
    const file = ctx.path(ctx.args[0]!);
    const url = ctx.optional('url');
    const archive = ctx.optional('archive');
    const vkeys = ctx.list('vkey');
    const roomText = ctx.optional('room-id');
    const roomId = roomText === undefined ? undefined : parseHexKey(roomText, '--room-id');
    let keys: StatementKeys;
    if (vkeys.length > 0) {
      if (url !== undefined || archive !== undefined) {
        throw new UserError('energy verify: give --vkey, or --url or --archive (not both)');
      }
      keys = { kind: 'vkeys', vkeys };
    } else {
      if (roomId === undefined || (url === undefined) === (archive === undefined)) {
        throw new UserError(
          "energy verify: give --room-id HEX with --url SERVER or --archive DIR (where the room's keys are), or --vkey VKEY",
        );
      }
      keys =
        url !== undefined
          ? { kind: 'room', roomId, url: urlOption(url) }
          : { kind: 'room', roomId, archive: ctx.path(archive!) };
    }
    const note = readBytes(file, 'statement');
    const opened = await openStatementWith(note, keys);
    if (!opened.ok) {
      const r = opened.refusal;
      if (r.reason === 'bad_signature' || r.reason === 'unverified') {
        throw new UserError(
          `${file}: ${r.reason === 'bad_signature' ? 'a signature by a key of the room does not verify' : 'no signature by a key that may sign it'} (${r.reason})`,
          EXIT.refused,
        );
      }
      throw new UserError(`${file}: not a statement of the energy account (${r.message})`);
    }
    const account = opened.value.account;
    if (roomId !== undefined && account.room !== Buffer.from(roomId).toString('hex')) {
      throw new UserError(
        `${file}: the statement is of the room ${account.room}, not --room-id ${Buffer.from(roomId).toString('hex')}`,
      );
    }
    if (ctx.flag('json')) {
      print(ctx, account);
      return EXIT.ok;
    }
    const by = opened.value.verified
      .map((v) => `${v.key.name}, key ${Buffer.from(v.key.publicKey).toString('hex')}`)
      .join('; ');
    ctx.out(`statement: signature verified (${by})\n`);
    print(ctx, account);
    return EXIT.ok;
  },
};
