// Signed notes, checkpoints and cosignatures made by other implementations.

/**
 * signed-note's own example (c2sp.org/signed-note, "Verifier keys", "Example"): the vkey, and
 * the note it verifies. The public key's hex is from florolf/tlog-scales' tests
 * (tests/test_signing.py, commit dfd5c4bf3b0c9703a6760e52e80e2515ee53f86e), which parse the same
 * vkey.
 */
export const SPEC_EXAMPLE = {
  vkey: 'example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k',
  publicKeyHex: 'e932791ae6e7a840a46164c904786426d5e7821dd8b29a00d61cae72afdd4da4',
  note:
    'This is an example message.\n' +
    '\n' +
    '— example.com/foo Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n',
};

/** signed-note's opening example: a text with an empty line in it, by an unknown key. */
export const QUASIMODO =
  'Ognuno sta solo sul cuor della terra\n' +
  'trafitto da un raggio di sole:\n' +
  '\n' +
  'ed è subito sera.\n' +
  '\n' +
  '— quasimodo.example/salvatore NnugSzTjtVAewIS+Z/iJhUPeFDkO/5QQ2i5ddnGITLlC+EhfLW9oJKONrMouFSQU0xMcXxj99ihAQwaqP3ZekRwNtIc=\n';

/**
 * A checkpoint of the Go checksum database, signed by sum.golang.org (Go's
 * golang.org/x/mod/sumdb/note), from transparency-dev/trillian-tessera
 * (internal/parse/parse_test.go, commit e2588c3b72cfc1cf3798430db5457867c43e6aab,
 * BenchmarkCheckpointUnsafe; the final newline of the signature line, which that benchmark
 * leaves out, restored). The vkey is the one the go command pins
 * (cmd/go/internal/modfetch/key.go).
 */
export const SUMDB = {
  vkey: 'sum.golang.org+033de0ae+Ac4zctda0e5eza+HJyk9SxEdh+s3Ux18htTTAD8OuAn8',
  note:
    'go.sum database tree\n31700353\nqINS1GRFhWHwdkUeqLEoP4yEMkTBBzxBkGwGQlVlVcs=\n\n' +
    '— sum.golang.org Az3grnmrIUEDFqHzAElIQCPNoRFRAAdFo47fooyWKMHb89k11GJh5zHIfNCOBmwn/C3YI8oW9/C8DJ87F61QqspBYwM=\n',
};

/**
 * A checkpoint of the static CT log arche2025h1.staging.ct.transparency.dev, with its Ed25519
 * note signature (type 0x01), its RFC 6962 tree head signature (type 0x05, not verified here)
 * and cosignatures of public witnesses (cosignature/v1, type 0x04), from florolf/tlog-scales
 * (tests/test_signing.py, commit dfd5c4bf3b0c9703a6760e52e80e2515ee53f86e, with its two vkeys).
 */
export const ARCHE = {
  logVkey: 'arche2025h1.staging.ct.transparency.dev+ba2f06c0+AU0vHmlGCS/PdN8b2OaGmKprLI8HKM+dJ472xgFYh15f',
  witnessVkey: 'remora.n621.de+da77ade7+BOvN63jn/bLvkieywe8R6UYAtVtNbZpXh34x7onlmtw2',
  origin: 'arche2025h1.staging.ct.transparency.dev',
  size: 1432088532n,
  note:
    'arche2025h1.staging.ct.transparency.dev\n' +
    '1432088532\n' +
    'U7WM79jrzyhGZ5/GUBTpM7NzwdyfFx61t3RovgcC4Ro=\n' +
    '\n' +
    '— arche2025h1.staging.ct.transparency.dev zTM8sQAAAZ5W0WdjBAMARjBEAiBjW5IQf9pvsYLfQFX6hoGREPMHbdQ3urbllzalApkptQIgIpwtEroeW2BXaHAI4kJXFbon5Ch9MNL5zRNZ55lvGt0=\n' +
    '— arche2025h1.staging.ct.transparency.dev ui8GwCF1+kWqZrxGdhj4aX3gcw7XUlXQQabg/27lefwhUkzbC3NygNI75MdhL1bfTW9g8Ei59RA23oHP7Ry1k3ZFWwQ=\n' +
    '— transparency.dev/DEV:witness-little-garden 2AQqhwAAAABqEiEgzgFIqqhbUoDwjMWE6UP8nd8/KYTzwZ2rhIgcqoXHAwVkjZr4AscylP3v7sEodkRAErumC2q44vdgJY096st5BQ==\n' +
    '— witness1.smartit.nu/witness1 pIyCDwAAAABqEiEghIp82KWebrw7/oHQwlTAm3g2RKS4+eebl8eO0WH+/iEcxZ75W3u5hNI7TOQtmJbqmNWVuE0tgh0XwzdZsDsUAQ==\n' +
    '— remora.n621.de 2net5wAAAABqEiEgPlfF3V06o0Y+fHM+J5J9s27wgxxcOVSpZ/2g/KSiXCg9DEZI+aVCIobWX9sXTynk5XeU/zZ0WBxtqB0DrAWfBw==\n' +
    '— witness.stagemole.eu Z/euoAAAAABqEiEgw0i+7g2ENfDAWHmtRzCfKTHSDwYDJA2NmKeGi9Y8FtEyOUvVr+AJmIY/2TUFucgKi7lI7cUiOvKFYe/TmN9DAg==\n',
};

/**
 * Checkpoints of Rekor (rekor.sigstore.dev and its staging instance), signed with ECDSA P-256
 * under sigstore's key ID convention (not a type this package verifies), from sigstore/sigstore-js
 * (packages/verify/src/__tests__/tlog/checkpoint.test.ts, commit
 * 1663b3e653814bb282ca3840be9c1cd24c71ae0a). The first has an extension line.
 */
export const REKOR_CHECKPOINTS = [
  'rekor.sigstore.dev - 2605736670972794746\n21428036\nrxnoKyFZlJ7/R6bMh/d3lcqwKqAy5CL1LcNBJP17kgQ=\nTimestamp: 1688058656037355364\n\n— rekor.sigstore.dev wNI9ajBFAiEAuDk7uu5Ae8Own/MjhSZNuVzbLuYH2jBMxbSA0WaNDNACIDV4reKpYiOpkwtvazCClnpUuduF2o/th2xR3gRZAUU4\n',
  'rekor.sigstage.dev - 8050909264565447525\n23003647\nWBwYpazawqUG5iErvDptvf7mpt84WIpmm+zfshgHhJs=\n\n— rekor.sigstage.dev 0y8wozBGAiEA2kq45YWfHHiDCJHH2+m9l+TVMtPBpOVu+VtVaj62V2MCIQDflbM2N7M/JTIV/spr9qYUI3gf4bO0qqSeiEWJ5xLgPA==\n',
];
