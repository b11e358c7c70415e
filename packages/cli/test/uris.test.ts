// serve: the policy's URIs against the listen address, or the public URL behind a proxy.
import { describe, expect, it } from 'vitest';
import { uriMismatches } from '../src/internal/uris.js';

const at = (base: string) => ({
  server_uri: `${base}/steer`,
  reload_uri: `${base}/steer`,
  decision_uri: `${base}/decisions/`,
});

describe('uriMismatches', () => {
  it('takes the listen address, loopback names as one host, and a wildcard listen host', () => {
    expect(uriMismatches(at('http://127.0.0.1:8080'), { host: '127.0.0.1', port: 8080 })).toEqual(
      [],
    );
    expect(uriMismatches(at('http://localhost:8080'), { host: '127.0.0.1', port: 8080 })).toEqual(
      [],
    );
    expect(
      uriMismatches(at('http://steer.example.com:8080'), { host: '0.0.0.0', port: 8080 }),
    ).toEqual([]);
    // A name may resolve to the listen address: only the port is compared.
    expect(
      uriMismatches(at('http://steer.internal:8080'), { host: '10.0.0.5', port: 8080 }),
    ).toEqual([]);
    expect(uriMismatches(at('http://127.0.0.1'), { host: '127.0.0.1', port: 80 })).toEqual([]);
    // Port 0: any free port, not compared.
    expect(uriMismatches(at('http://127.0.0.1:8080'), { host: '127.0.0.1', port: 0 })).toEqual([]);
  });

  it('names each URI on another port, host or scheme', () => {
    const port = uriMismatches(at('http://127.0.0.1:8080'), { host: '127.0.0.1', port: 18082 });
    expect(port).toHaveLength(3);
    expect(port[0]).toBe(
      "the policy's server_uri http://127.0.0.1:8080/steer is port 8080, but the server listens on 127.0.0.1:18082",
    );
    expect(uriMismatches(at('http://10.0.0.6:8080'), { host: '10.0.0.5', port: 8080 })[0]).toMatch(
      /is host 10\.0\.0\.6, but the server listens on 10\.0\.0\.5:8080/,
    );
    expect(
      uriMismatches(at('https://steer.example.com'), { host: '127.0.0.1', port: 8080 })[0],
    ).toMatch(/is https, but the server listens on http:\/\/127\.0\.0\.1:8080 \(set public_url/);
  });

  it('behind a proxy, compares with public_url: scheme, host, port and path prefix', () => {
    const listen = { host: '127.0.0.1', port: 18082 };
    expect(
      uriMismatches(at('https://steer.example.com'), listen, 'https://steer.example.com'),
    ).toEqual([]);
    expect(
      uriMismatches(at('https://cdn.example.com/live'), listen, 'https://cdn.example.com/live/'),
    ).toEqual([]);
    expect(
      uriMismatches(at('https://cdn.example.com/vod'), listen, 'https://cdn.example.com/live'),
    ).toHaveLength(3);
    expect(
      uriMismatches(at('http://steer.example.com'), listen, 'https://steer.example.com')[0],
    ).toBe(
      "the policy's server_uri http://steer.example.com/steer is not under public_url https://steer.example.com",
    );
  });
});
