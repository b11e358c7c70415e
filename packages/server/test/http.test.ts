import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { useDemoServer } from './helpers/setup.js';

describe('the HTTP surface', () => {
  const running = useDemoServer();

  it('serves a manifest cross-origin, then its decision by digest (GET and HEAD)', async () => {
    const res = await fetch(`${running.server.url}/steer?_HLS_pathway=cdn-a`, {
      headers: { origin: 'https://player.example' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/vnd.apple.steering-list');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const text = await res.text();
    expect(text.endsWith('}')).toBe(true);
    const uri = JSON.parse(text)['science.transaction.wai-decision'] as string;
    const path = new URL(uri).pathname;
    const got = await fetch(`${running.server.url}${path}`);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('application/octet-stream');
    expect(got.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const bytes = new Uint8Array(await got.arrayBuffer());
    expect(new TextDecoder().decode(bytes.subarray(0, 4))).toBe('WSD1');
    const head = await fetch(`${running.server.url}${path}`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(bytes.length));
    expect((await head.arrayBuffer()).byteLength).toBe(0);
  });

  it('answers a record over the limit with 413 without reading it', async () => {
    const { port } = new URL(running.server.url);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/records',
          headers: { 'content-length': 1_000_000 },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.write(Buffer.alloc(1000));
    });
    expect(status).toBe(413);
    const chunked = await fetch(`${running.server.url}/records`, {
      method: 'POST',
      body: new Uint8Array(70_000),
    });
    expect(chunked.status).toBe(413);
  });

  it('answers a CORS preflight and unknown paths', async () => {
    const pre = await fetch(`${running.server.url}/steer`, {
      method: 'OPTIONS',
      headers: { origin: 'https://player.example', 'access-control-request-method': 'GET' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-methods')).toContain('GET');
    const nf = await fetch(`${running.server.url}/nope`);
    expect(nf.status).toBe(404);
    expect(await nf.json()).toMatchObject({ error: 'not_found' });
  });
});
