import {
  digestOf,
  readRoom,
  signRoom,
  toHex,
  unwrap,
  verifyRoomSignature,
} from '@wai-steering/wire';
import type { Command } from '../internal/command.js';
import { UserError } from '../internal/errors.js';
import { writeOutput } from '../internal/files.js';
import { readPublicKeyArg, readSecretKeyFile } from '../internal/keys.js';
import { describeRefusal, readRoomFile } from '../internal/records.js';
import { roomJson, roomText } from '../internal/show.js';
import { signing } from '../internal/sign.js';

export const roomCreate: Command = {
  name: ['room', 'create'],
  summary: 'Create and sign a room descriptor (WRD1); print the room id.',
  options: {
    authority: {
      type: 'string',
      arg: 'KEY',
      description: "the room authority's key file (it signs the descriptor)",
      required: true,
    },
    origin: {
      type: 'string',
      arg: 'HEX',
      description:
        "the origin's public key (64 hex digits, or a key file) whose key log governs the room",
    },
    name: {
      type: 'string',
      arg: 'NAME',
      description: '1 to 64 printable ASCII characters',
      required: true,
    },
    out: {
      type: 'string',
      arg: 'FILE',
      description: 'the descriptor file to write',
      required: true,
    },
    json: { type: 'boolean', description: 'print the descriptor as JSON' },
  },
  description: `
Signs a room descriptor (companion C3) with the authority's key and writes its bytes. The room id,
which policies, decisions and records name, is the descriptor's digest; it is printed. Without
--origin the room names no origin: it has no key log, and only its authority signs policies,
decisions and records.`,
  run(ctx) {
    const authority = readSecretKeyFile(ctx.path(ctx.string('authority')), '--authority key file');
    const originArg = ctx.optional('origin');
    const origin =
      originArg === undefined
        ? new Uint8Array(32)
        : readPublicKeyArg(originArg, '--origin', (p) => ctx.path(p));
    const name = ctx.string('name');
    if (!/^[\x20-\x7e]{1,64}$/.test(name)) {
      throw new UserError('--name: expected 1 to 64 printable ASCII characters (C3)');
    }
    const bytes = signing(() =>
      signRoom({ authority: authority.publicKey, origin, name }, authority.secretKey),
    );
    writeOutput(ctx.path(ctx.string('out')), bytes, 'room file');
    const room = unwrap(readRoom(bytes));
    ctx.out(
      ctx.flag('json') ? `${JSON.stringify(roomJson(room))}\n` : `${toHex(digestOf(room))}\n`,
    );
    return 0;
  },
};

export const roomInspect: Command = {
  name: ['room', 'inspect'],
  summary: 'Print a room descriptor: its id, name, authority and origin.',
  args: ['FILE'],
  options: { json: { type: 'boolean', description: 'print the descriptor as JSON' } },
  description: `
Reads a room descriptor (WRD1), checks its signature by its authority, and prints it. A file
that does not read, or whose signature does not verify, is an error.`,
  run(ctx) {
    const path = ctx.path(ctx.args[0]!);
    const { value: room } = readRoomFile(path);
    const bad = verifyRoomSignature(room);
    if (bad !== undefined) throw new UserError(`room ${path}: ${describeRefusal(bad)}`);
    ctx.out(ctx.flag('json') ? `${JSON.stringify(roomJson(room))}\n` : roomText(room));
    return 0;
  },
};
