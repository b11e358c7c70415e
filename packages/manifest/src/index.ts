// @wai-steering/manifest: §8 of energy-aware content steering — the steering manifest, the HLS
// tag and the DASH element, written byte for byte.

export { dashElement } from './dash.js';
export { hlsTag } from './hls.js';
export {
  decisionUri,
  type ManifestDecision,
  type ManifestPolicy,
  STEERING_MEDIA_TYPE,
  writeManifest,
} from './steering-manifest.js';
