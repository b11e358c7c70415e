import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { consoleDistDir, readConsoleAssets } from '../../src/console/assets.js';

describe('the built console', () => {
  const dir = consoleDistDir();
  const assets = dir === undefined ? new Map() : readConsoleAssets(dir);

  it('has its pages, their scripts under hashed names', () => {
    expect(assets.has('index.html')).toBe(true);
    expect(assets.has('verify.html')).toBe(true);
    expect(assets.has('energy.html')).toBe(true);
    for (const name of assets.keys()) {
      if (name.endsWith('.js') || name.endsWith('.css')) {
        expect(name).toMatch(/^assets\/[A-Za-z0-9_.-]+-[A-Za-z0-9_-]{8}\.(js|css)$/);
      }
    }
  });

  it('keeps the JavaScript of the console, the verifier and the Energy page under 200 KB gzipped', () => {
    const scripts = new Set<string>();
    for (const page of ['index.html', 'verify.html', 'energy.html']) {
      const html = new TextDecoder().decode(assets.get(page)!.bytes);
      // Relative URLs (the build's base is ./), so the pages work from any directory.
      expect(html).not.toMatch(/(?:src|href)="\/assets\//);
      for (const m of html.matchAll(/(?:src|href)="\.\/(assets\/[^"]+\.js)"/g)) scripts.add(m[1]!);
    }
    expect(scripts.size).toBeGreaterThanOrEqual(2);
    let total = 0;
    for (const s of scripts) total += gzipSync(assets.get(s)!.bytes, { level: 9 }).length;
    expect(total).toBeLessThan(200_000);
  });
});
