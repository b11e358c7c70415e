// `@wai-steering/wire/internal`: small helpers the project's own packages share, so that each is
// written once. Not part of the public API: no semantic-versioning promise; a user imports
// `@wai-steering/wire`.

export { ED25519_L } from '../crypto/strict.js';
export { assertBytes, latin1 } from './bytes.js';
