import { describe, expect, it } from 'vitest';
import { hlsTag } from '../src/index.js';
import { policyOf } from './helpers/fixtures.js';

describe('§8.2 the HLS tag', () => {
  it('SERVER-URI and the initial pathway id, no line terminator', () => {
    const policy = policyOf([{ id: 'cdn-a' }, { id: 'cdn-b' }], {
      initial: 1,
      server_uri: 'https://steer.example/s?room=1&v=2',
    });
    expect(hlsTag(policy)).toBe(
      '#EXT-X-CONTENT-STEERING:SERVER-URI="https://steer.example/s?room=1&v=2",PATHWAY-ID="cdn-b"',
    );
  });
});
