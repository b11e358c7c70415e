import { randomBytes } from 'node:crypto';
import { getBackend, toHex } from '@wai-steering/wire';
import type { Command } from '../internal/command.js';
import { readKeyFile, writeKeyFile } from '../internal/keys.js';

export const keygen: Command = {
  name: ['keygen'],
  summary: 'Generate an Ed25519 key and write it as a JWK file (mode 0600).',
  options: {
    out: { type: 'string', arg: 'FILE', description: 'the key file to write', required: true },
    force: { type: 'boolean', description: 'overwrite FILE if it exists' },
    json: { type: 'boolean', description: 'print {"public_key":"<hex>"}' },
  },
  description: `
Writes a new secret key as an RFC 8037 JWK, {"kty":"OKP","crv":"Ed25519","x":…,"d":…}, with
mode 0600, and prints its public key as 64 hex digits. An existing FILE is never overwritten
unless --force is given.`,
  run(ctx) {
    const secret = new Uint8Array(randomBytes(32));
    writeKeyFile(ctx.path(ctx.string('out')), secret, ctx.flag('force'));
    const publicKey = toHex(getBackend().publicKey(secret));
    ctx.out(ctx.flag('json') ? `${JSON.stringify({ public_key: publicKey })}\n` : `${publicKey}\n`);
    return 0;
  },
};

export const pubkey: Command = {
  name: ['pubkey'],
  summary: "Print a key file's public key in hex.",
  args: ['FILE'],
  options: {
    json: { type: 'boolean', description: 'print {"public_key":"<hex>"}' },
  },
  description: `
Reads a JWK file (a secret key, or a public key with no "d") and prints its public key as 64
lowercase hex digits: the form policies, key logs and records name keys in.`,
  run(ctx) {
    const key = readKeyFile(ctx.path(ctx.args[0]!));
    const publicKey = toHex(key.publicKey);
    ctx.out(ctx.flag('json') ? `${JSON.stringify({ public_key: publicKey })}\n` : `${publicKey}\n`);
    return 0;
  },
};
