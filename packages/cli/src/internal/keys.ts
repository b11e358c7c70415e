import { readStrictJson } from '@wai-steering/config-text';
import { type Ed25519Jwk, jwkToKeyPair, parseHex, secretKeyToJwk } from '@wai-steering/wire';
import { UserError } from './errors.js';
import { readText, writeOutput } from './files.js';

/** A key read from a JWK file (RFC 8037): its public key, and its secret key when it has `d`. */
export interface KeyFile {
  readonly path: string;
  readonly publicKey: Uint8Array;
  readonly secretKey?: Uint8Array;
}

/** A key read from a JWK file that holds the secret key. */
export interface SecretKeyFile extends KeyFile {
  readonly secretKey: Uint8Array;
}

/** Reads a JWK file: `{"kty":"OKP","crv":"Ed25519","x":…}` with `d` for a secret key. */
export function readKeyFile(path: string, what = 'key file'): KeyFile {
  const text = readText(path, what);
  const read = readStrictJson(text);
  if (!read.ok) throw new UserError(`${what} ${path} is not a JWK: ${read.problem}`);
  const jwk = read.value;
  try {
    const pair = jwkToKeyPair(jwk);
    return pair.secretKey === undefined
      ? { path, publicKey: pair.publicKey }
      : { path, publicKey: pair.publicKey, secretKey: pair.secretKey };
  } catch (e) {
    if (e instanceof TypeError) {
      throw new UserError(`${what} ${path} is not an Ed25519 JWK: ${e.message}`);
    }
    throw e;
  }
}

/** Reads a JWK file that must hold the secret key (`d`), for a command that signs. */
export function readSecretKeyFile(path: string, what = 'key file'): SecretKeyFile {
  const key = readKeyFile(path, what);
  if (key.secretKey === undefined) {
    throw new UserError(
      `${what} ${path} holds a public key only (no "d"): signing needs the secret key`,
    );
  }
  return key as SecretKeyFile;
}

const HEX64 = /^[0-9a-fA-F]{64}$/;

/** A public key given as 64 hexadecimal digits or as the path of a JWK file. */
export function readPublicKeyArg(
  value: string,
  option: string,
  resolve: (path: string) => string,
): Uint8Array {
  if (HEX64.test(value)) return parseHex(value)!;
  if (/^[0-9a-fA-F]+$/.test(value) && value.length !== 64) {
    throw new UserError(
      `${option}: expected 64 hex digits or a key file, got ${value.length} digits`,
    );
  }
  return readKeyFile(resolve(value), `${option} key file`).publicKey;
}

/** 32 bytes from exactly 64 hexadecimal digits, or a {@link UserError} naming `what`. */
export function parseHexKey(value: string, what: string): Uint8Array {
  if (!HEX64.test(value)) throw new UserError(`${what}: expected 64 hex digits`);
  return parseHex(value)!;
}

/** Writes a secret key as a JWK file, mode 0600, refusing an existing file unless `force`. */
export function writeKeyFile(path: string, secretKey: Uint8Array, force: boolean): Ed25519Jwk {
  const jwk = secretKeyToJwk(secretKey);
  const text = `${JSON.stringify({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, d: jwk.d })}\n`;
  writeOutput(path, text, 'key file', { secret: true, noClobber: true, force });
  return jwk;
}
