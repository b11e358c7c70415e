// The HTML report renders in Chromium (Debian's, driven by playwright-core): its plots are drawn,
// it asks for nothing over the network, logs no error, and a screenshot is kept in test-output/.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { nodeBackend } from '@wai-steering/wire/node';
import { chromium } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { auditDecisions, renderHtml } from '../src/index.js';
import { makeWorld, SimServer, sessionOf, T0, tempDir } from './helpers/world.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
];
const OUTPUT = join(import.meta.dirname, '..', 'test-output');

const { dir, remove } = tempDir();
afterAll(remove);

describe('the HTML report', () => {
  it('renders in Chromium: plots, tables, no request, no console error', async () => {
    // A log with a lie: cdn-b stated full for a stretch, and one decision tampered with.
    const base = makeWorld(1);
    const world = makeWorld(70, {
      pathways: base.policyFields.pathways.map((p, i) =>
        i === 2 ? { ...p, min_share_ppm: 200_000 } : p,
      ),
    });
    const sim = new SimServer(world);
    for (let i = 0; i < 400; i++) {
      const t = T0 + BigInt(i) * 150_000n;
      const lying = t >= T0 + 20_000_000n && t < T0 + 30_000_000n;
      sim.decide(
        t,
        sessionOf(i % 40),
        undefined,
        lying ? (l) => l.map((n, p) => (p === 1 ? 500 : n)) : undefined,
      );
    }
    const decisions = sim.made.map((m) => m.bytes);
    const tampered = decisions[100]!.slice();
    tampered[tampered.length - 1]! ^= 1;
    decisions[100] = tampered;
    const { result, series } = auditDecisions(
      { room: world.room, keyLog: world.keyLog, policies: [world.policy], records: world.records },
      decisions,
      { roomId: world.roomId, graceS: 10, backend: nodeBackend },
    );
    expect(result.refused).toHaveLength(1);
    expect(result.shares).toHaveLength(1);
    expect(result.loads.inconsistent.length).toBeGreaterThan(10);
    const html = renderHtml(result, series);
    // Times in the one form of human output: instants RFC 3339 to the millisecond, the bars'
    // width a readable duration, no raw µs.
    expect(series.width_us).toBe('1000000');
    expect(html).toContain('Decisions by reason over time (1 s a bar)');
    expect(html).toContain(`>${new Date(Number(T0 / 1000n)).toISOString()}<`);
    expect(html).not.toContain('µs');
    // Self-contained: no script, no external reference.
    expect(html).not.toMatch(/<script|<link|src=|https?:\/\/(?!www\.w3\.org)/i);
    const file = join(dir, 'report.html');
    writeFileSync(file, html);

    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ARGS,
      timeout: 60_000,
    });
    try {
      const page = await browser.newPage({ viewport: { width: 1000, height: 800 } });
      const errors: string[] = [];
      const requests: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      page.on('pageerror', (e) => errors.push(String(e)));
      page.on('request', (r) => requests.push(r.url()));
      const url = pathToFileURL(file).href;
      await page.goto(url, { waitUntil: 'load' });
      expect(await page.title()).toBe('Steering audit');
      // One load plot per pathway, the shares, the reasons; the polylines are drawn.
      expect(await page.locator('svg').count()).toBe(series.pathways.length + 1 + 1);
      expect(await page.locator('polyline').count()).toBe(2 * series.pathways.length);
      const box = await page.locator('svg').first().boundingBox();
      expect(box?.width).toBeGreaterThan(100);
      expect(await page.locator('text=bad_signature').count()).toBe(1);
      // Every label of every plot fits in its plot: none is cut at the edge.
      const overflow = await page.$$eval('svg', (svgs) =>
        svgs.flatMap((svg) => {
          // The plot's width, from its viewBox ("x y width height").
          const [x0, , width] = (svg.getAttribute('viewBox') ?? '').split(' ').map(Number);
          return [...svg.querySelectorAll('text')].flatMap((t) => {
            const b = (t as unknown as { getBBox(): { x: number; width: number } }).getBBox();
            return b.x < x0! - 0.5 || b.x + b.width > x0! + width! + 0.5
              ? [
                  `${t.textContent} (${b.x.toFixed(0)} to ${(b.x + b.width).toFixed(0)} of ${width})`,
                ]
              : [];
          });
        }),
      );
      expect(overflow).toEqual([]);
      // The bands' labels say the figures in full.
      expect(
        await page
          .locator('text=/^observed \\d+\\.\\d\\d% of \\d+ sessions, expected 20\\.00%: z = /')
          .count(),
      ).toBe(1);
      mkdirSync(OUTPUT, { recursive: true });
      await page.screenshot({ path: join(OUTPUT, 'audit-report.png'), fullPage: true });
      expect(errors).toEqual([]);
      expect(requests).toEqual([url]);
    } finally {
      await browser.close();
    }
  });
});
