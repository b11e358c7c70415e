// @wai-steering/tlog: a tiled transparency log to the letter of C2SP (tlog-tiles,
// tlog-checkpoint, signed-note, tlog-cosignature, tlog-proof, tlog-witness) over RFC 6962's
// Merkle trees. Portable: no Node module, no Node global; hashing and Ed25519 through
// `@wai-steering/wire`'s `CryptoBackend`.

export {
  type Checkpoint,
  formatCheckpoint,
  type OpenCheckpointOptions,
  type OpenedCheckpoint,
  openCheckpoint,
  parseCheckpoint,
  signCheckpoint,
} from './checkpoint.js';
export { type Cosigner, cosignatureTimestamp, cosigner } from './cosignature.js';
export {
  ENTRY_LENGTH,
  type Entry,
  encodeEntry,
  encodeEntryBundle,
  entryOfDecision,
  readEntry,
  readEntryBundle,
} from './entries.js';
export { type Integration, integrate } from './integrate.js';
export { emptyLogState, type LogState, type TileData } from './log-state.js';
export {
  type ConsistencyInput,
  emptyRoot,
  HASH_SIZE,
  type InclusionInput,
  leafHash,
  nodeHash,
  proveConsistency,
  proveInclusion,
  rootOf,
  type SubtreeSource,
  treeRoot,
  verifyConsistency,
  verifyInclusion,
} from './merkle.js';
export {
  ed25519Signer,
  formatNote,
  formatSignatureLine,
  formatVerifierKey,
  MAX_NOTE_SIGNATURES,
  type Note,
  type NoteSignature,
  type NoteSigner,
  noteKeyId,
  type OpenedNote,
  openNote,
  type ParseNoteOptions,
  parseNote,
  parseVerifierKey,
  SIGNATURE_TYPE,
  signNote,
  type VerifiedSignature,
  type VerifierKey,
  verifierKey,
} from './note.js';
export {
  formatTlogProof,
  type ParsedTlogProof,
  parseTlogProof,
  TLOG_PROOF_HEADER,
  type TlogProof,
  type VerifiedTlogProof,
  type VerifyTlogProofOptions,
  verifyTlogProof,
  type WitnessCosignature,
} from './proof.js';
export {
  isTlogRefusal,
  TLOG_REASONS,
  type TlogReason,
  TlogRefusal,
  type TlogResult,
  type TlogWhere,
} from './refusal.js';
export {
  type TileFetcher,
  TileHashReader,
  type TileHashReaderOptions,
  type TreeHead,
} from './tile-reader.js';
export {
  type LevelTiles,
  MAX_TILE_LEVEL,
  parseTilePath,
  TILE_WIDTH,
  type Tile,
  tileOf,
  tilePath,
  tilesOf,
} from './tiles.js';
export {
  type TreeHashing,
  type WasmTreeHashing,
  wasmTreeHashing,
} from './tree-hashing.js';
export {
  type AddCheckpointAnswer,
  type AddCheckpointContext,
  type AddCheckpointRequest,
  addCosignatures,
  decideAddCheckpoint,
  formatAddCheckpoint,
  MAX_CONSISTENCY_LINES,
  originHash,
  parseAddCheckpoint,
  type WitnessState,
} from './witness.js';
