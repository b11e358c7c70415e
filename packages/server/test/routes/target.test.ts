import { describe, expect, it } from 'vitest';
import { pathOfUri, splitTarget } from '../../src/routes/target.js';

describe('request targets', () => {
  it('finds the path of a policy URI', () => {
    expect(pathOfUri('http://h:1/steer?x=1')).toBe('/steer');
    expect(pathOfUri('https://h/a/b/')).toBe('/a/b/');
    expect(pathOfUri('https://h')).toBe('/');
    expect(pathOfUri('https://h?q')).toBe('/');
    expect(pathOfUri('/rel/path#f')).toBe('/rel/path');
  });
  it('splits origin-form and absolute-form targets', () => {
    expect(splitTarget('/steer?a=1#x')).toEqual({ path: '/steer', query: 'a=1' });
    expect(splitTarget('http://h:8080/steer?a=1')).toEqual({ path: '/steer', query: 'a=1' });
    expect(splitTarget('http://h:8080')).toEqual({ path: '/', query: '' });
    expect(splitTarget('*')).toBeUndefined();
    expect(splitTarget('steer')).toBeUndefined();
  });
});
