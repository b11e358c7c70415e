import { describe, expect, it } from 'vitest';
import { dashElement } from '../src/index.js';
import { policyOf } from './helpers/fixtures.js';

describe('§8.3 the DASH element', () => {
  it('queryBeforeStart="false" with flag bit 0 clear; & written &amp;', () => {
    const policy = policyOf([{ id: 'a' }, { id: 'b' }], {
      initial: 1,
      server_uri: 'https://steer.example/s?room=1&v=2&w',
    });
    expect(dashElement(policy)).toBe(
      '<ContentSteering defaultServiceLocation="b" queryBeforeStart="false">https://steer.example/s?room=1&amp;v=2&amp;w</ContentSteering>',
    );
  });
  it('queryBeforeStart="true" with flag bit 0 set; a URI with no &', () => {
    const policy = policyOf([{ id: 'a' }], { flags: 1 });
    expect(dashElement(policy)).toBe(
      '<ContentSteering defaultServiceLocation="a" queryBeforeStart="true">https://steer.example/v1/steer</ContentSteering>',
    );
  });
});
