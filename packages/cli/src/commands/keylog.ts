import {
  compareBytes,
  digestOf,
  KEY_STATUS,
  type KeyLog,
  type KeyLogEntry,
  readKeyLog,
  signKeyLog,
  toHex,
  unwrap,
  verifyKeyLogSignature,
} from '@wai-steering/wire';
import type { Command, Context } from '../internal/command.js';
import { UserError } from '../internal/errors.js';
import { writeOutput } from '../internal/files.js';
import { readPublicKeyArg, readSecretKeyFile, type SecretKeyFile } from '../internal/keys.js';
import { describeRefusal, readKeyLogFile } from '../internal/records.js';
import { keyLogJson, keyLogText } from '../internal/show.js';
import { signing } from '../internal/sign.js';

/** The authorities companion C4 names; others are valid but read by nothing here. */
const KNOWN_AUTHORITIES = new Set([
  'live/room',
  'live/steer',
  'live/hop',
  'energy/ModelBased',
  'energy/Estimator',
  'energy/OnChipCounter',
  'energy/CalibratedInstrument',
]);

/** A comma-separated `may_sign` list: checked, de-duplicated and sorted bytewise (C4). */
function parseMaySign(ctx: Context, text: string, what: string): string[] {
  const items = text === '' ? [] : text.split(',');
  for (const item of items) {
    if (!/^[A-Za-z0-9/_.-]{1,64}$/.test(item)) {
      throw new UserError(
        `${what}: "${item}" is not an authority (1 to 64 of a-z A-Z 0-9 / _ - .)`,
      );
    }
    if (!KNOWN_AUTHORITIES.has(item)) {
      ctx.warn(
        `${what}: ${item} is not an authority a key log grants (kept, but nothing reads it)`,
      );
    }
  }
  return [...new Set(items)].sort();
}

/** `HEX|KEYFILE=a,b,…` of `keylog create --entry`. */
function parseEntry(ctx: Context, text: string): KeyLogEntry {
  const eq = text.lastIndexOf('=');
  if (eq === -1) {
    throw new UserError(`--entry ${text}: expected KEY=AUTHORITY,… (for example <hex>=live/room)`);
  }
  const key = readPublicKeyArg(text.slice(0, eq), '--entry', (p) => ctx.path(p));
  return {
    key,
    status: KEY_STATUS.active,
    may_sign: parseMaySign(ctx, text.slice(eq + 1), `--entry ${text.slice(0, eq)}`),
  };
}

function sortEntries(entries: KeyLogEntry[]): KeyLogEntry[] {
  return entries.sort((a, b) => compareBytes(a.key, b.key));
}

/** Signs and writes a head, then prints its digest (or its JSON). */
function writeHead(
  ctx: Context,
  origin: SecretKeyFile,
  seq: bigint,
  prev: Uint8Array,
  entries: KeyLogEntry[],
): number {
  const bytes = signing(
    () =>
      signKeyLog(
        { origin: origin.publicKey, seq, prev, entries: sortEntries(entries) },
        origin.secretKey,
      ),
    'the key log head',
  );
  writeOutput(ctx.path(ctx.string('out')), bytes, 'key log file');
  const head = unwrap(readKeyLog(bytes));
  ctx.out(
    ctx.flag('json') ? `${JSON.stringify(keyLogJson(head))}\n` : `${toHex(digestOf(head))}\n`,
  );
  return 0;
}

/** The current head of `--log`, verified and of the `--origin` key. */
function readCurrentHead(ctx: Context, origin: SecretKeyFile): KeyLog {
  const path = ctx.path(ctx.string('log'));
  const { value: head } = readKeyLogFile(path);
  const bad = verifyKeyLogSignature(head);
  if (bad !== undefined) throw new UserError(`key log ${path}: ${describeRefusal(bad)}`);
  if (compareBytes(head.origin, origin.publicKey) !== 0) {
    throw new UserError(
      `key log ${path} is the log of origin ${toHex(head.origin)}, not of the --origin key ${toHex(origin.publicKey)}`,
    );
  }
  return head;
}

const ORIGIN = {
  type: 'string',
  arg: 'KEY',
  description: "the origin's key file (it signs the head)",
  required: true,
} as const;
const OUT = {
  type: 'string',
  arg: 'FILE',
  description: 'the new head to write',
  required: true,
} as const;
const JSON_OPTION = { type: 'boolean', description: 'print the new head as JSON' } as const;
const LOG = {
  type: 'string',
  arg: 'FILE',
  description: 'the current head',
  required: true,
} as const;

export const keylogCreate: Command = {
  name: ['keylog', 'create'],
  summary: "Create an origin's first key log head (seq 0); print its digest.",
  options: {
    origin: ORIGIN,
    entry: {
      type: 'string',
      arg: 'KEY=AUTH,…',
      description: 'a key (64 hex digits or a key file) and what it may sign, e.g. <hex>=live/room',
      multiple: true,
    },
    out: OUT,
    json: JSON_OPTION,
  },
  description: `
Signs the first head of an origin's key log (companion C4: seq 0, no prev) with the origin's key.
Each --entry lists a key, active, with its may_sign authorities: live/room (a room authority),
live/steer (signs policies and decisions), live/hop (signs per-hop records), and
energy/ModelBased, energy/Estimator, energy/OnChipCounter, energy/CalibratedInstrument (states
figures of that class). Entries are written in ascending order of key, authorities in ascending
order.`,
  run(ctx) {
    const origin = readSecretKeyFile(ctx.path(ctx.string('origin')), '--origin key file');
    const entries = ctx.list('entry').map((e) => parseEntry(ctx, e));
    const seen = new Set<string>();
    for (const e of entries) {
      const hex = toHex(e.key);
      if (seen.has(hex)) throw new UserError(`--entry: key ${hex} is listed twice`);
      seen.add(hex);
    }
    return writeHead(ctx, origin, 0n, new Uint8Array(32), entries);
  },
};

export const keylogAdd: Command = {
  name: ['keylog', 'add'],
  summary: "Write the next key log head with a key added (or an active key's grants replaced).",
  options: {
    origin: ORIGIN,
    log: LOG,
    key: {
      type: 'string',
      arg: 'HEX|KEYFILE',
      description: 'the key to list: 64 hex digits, or a key file',
      required: true,
    },
    'may-sign': {
      type: 'string',
      arg: 'AUTH,…',
      description: 'what it may sign, comma-separated (e.g. live/hop,energy/OnChipCounter)',
      required: true,
    },
    out: OUT,
    json: JSON_OPTION,
  },
  description: `
Reads the current head (--log), checks that it verifies and is the --origin key's, and writes the
next head (seq + 1, prev the current head's digest) signed with the origin's key, listing --key
as active with the given authorities. A key already listed and active has its authorities
replaced; a revoked key is never listed again (generate a new key).`,
  run(ctx) {
    const origin = readSecretKeyFile(ctx.path(ctx.string('origin')), '--origin key file');
    const head = readCurrentHead(ctx, origin);
    const key = readPublicKeyArg(ctx.string('key'), '--key', (p) => ctx.path(p));
    const may_sign = parseMaySign(ctx, ctx.string('may-sign'), '--may-sign');
    const entries = head.entries.filter((e) => compareBytes(e.key, key) !== 0);
    const existing = head.entries.find((e) => compareBytes(e.key, key) === 0);
    if (existing?.status === KEY_STATUS.revoked) {
      throw new UserError(
        `--key ${toHex(key)} is revoked in the key log; a revoked key is not listed again`,
      );
    }
    entries.push({ key, status: KEY_STATUS.active, may_sign });
    return writeHead(ctx, origin, head.seq + 1n, digestOf(head), entries);
  },
};

export const keylogRevoke: Command = {
  name: ['keylog', 'revoke'],
  summary: 'Write the next key log head with a key revoked.',
  options: {
    origin: ORIGIN,
    log: LOG,
    key: {
      type: 'string',
      arg: 'HEX',
      description: 'the key to revoke: 64 hex digits (or a key file)',
      required: true,
    },
    out: OUT,
    json: JSON_OPTION,
  },
  description: `
Reads the current head (--log), checks that it verifies and is the --origin key's, and writes the
next head (seq + 1, prev the current head's digest) with --key's entry revoked (status 2, its
authorities kept). Any signature by a revoked key is refused (signer_revoked, hop_revoked).`,
  run(ctx) {
    const origin = readSecretKeyFile(ctx.path(ctx.string('origin')), '--origin key file');
    const head = readCurrentHead(ctx, origin);
    const key = readPublicKeyArg(ctx.string('key'), '--key', (p) => ctx.path(p));
    const existing = head.entries.find((e) => compareBytes(e.key, key) === 0);
    if (existing === undefined)
      throw new UserError(`--key ${toHex(key)} is not listed in the key log`);
    if (existing.status === KEY_STATUS.revoked) {
      throw new UserError(`--key ${toHex(key)} is already revoked`);
    }
    const entries = head.entries.map((e) =>
      e === existing ? { key: e.key, status: KEY_STATUS.revoked, may_sign: e.may_sign } : e,
    );
    return writeHead(ctx, origin, head.seq + 1n, digestOf(head), entries);
  },
};

export const keylogInspect: Command = {
  name: ['keylog', 'inspect'],
  summary: 'Print a key log head: origin, seq, prev and every entry.',
  args: ['FILE'],
  options: { json: { type: 'boolean', description: 'print the head as JSON' } },
  description: `
Reads a key log head (WKL1), checks its signature by its own origin, and prints it.`,
  run(ctx) {
    const path = ctx.path(ctx.args[0]!);
    const { value: head } = readKeyLogFile(path);
    const bad = verifyKeyLogSignature(head);
    if (bad !== undefined) throw new UserError(`key log ${path}: ${describeRefusal(bad)}`);
    ctx.out(ctx.flag('json') ? `${JSON.stringify(keyLogJson(head))}\n` : keyLogText(head));
    return 0;
  },
};
