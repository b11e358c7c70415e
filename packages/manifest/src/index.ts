// @wai-steering/manifest: §8 of energy-aware content steering — the steering manifest, the HLS
// tag and the DASH element, written byte for byte.

export {
  writeManifest,
  decisionUri,
  STEERING_MEDIA_TYPE,
  type ManifestDecision,
  type ManifestPolicy,
} from './steering-manifest.js';
export { hlsTag } from './hls.js';
export { dashElement } from './dash.js';
