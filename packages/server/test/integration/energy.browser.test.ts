// The console's Energy page in a real browser (Debian's Chromium through playwright-core),
// against a running demo server whose store holds a day of history: its simulated hops' records
// every period (their power model, docs/energy.md, with an audience that rises and falls over the
// day and moves from the incumbent cdn-a to cdn-b) and two steering decisions a period. The page
// states the account the server answers (its savings in both views, to the unit), draws the
// cumulative savings and each pathway's fit (asserted on what the plots were given, not on
// pixels), says why a pathway has no marginal figure, and changes span. The screenshot is kept
// in test-output/console/energy.png.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type EnergyAccountJson, readAccount } from '@wai-steering/energy';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/read.js';
import { setupDemo } from '../../src/demo/setup.js';
import { HopSimulator } from '../../src/demo/simulator.js';
import { type RunningServer, startServer } from '../../src/server.js';
import { type Browser, HAVE_CHROMIUM, launch } from '../helpers/chromium.js';
import { freePort, TestClock, tempDir } from '../helpers/setup.js';

const OUT = join(import.meta.dirname, '..', 'test-output', 'console');
/** Two-minute periods: a day is 720 of them, filled in seconds on a clock the test moves. */
const P_MS = 120_000;
const P = BigInt(P_MS) * 1000n;
const DAY = 720;

/** Players steered in period k of the day: a day's rise and fall, 1 to 9 a period. */
function steered(k: number): number {
  return Math.max(1, Math.round(5 - 4 * Math.cos((2 * Math.PI * k) / DAY) + Math.sin(k / 5)));
}

/** Players the server does not steer (other rooms, other clients): most on the incumbent cdn-a. */
function unsteered(k: number): number[] {
  return [Math.round(70 - 45 * Math.cos((2 * Math.PI * k) / DAY) + 8 * Math.sin(k / 3)), 6, 3];
}

/** Waits for the page's state (`data-ready` of its body): drawn (`true`) or failed. */
async function ready(page: Page, state: 'true' | 'failed'): Promise<void> {
  await page.waitForSelector(`body[data-ready="${state}"]`, {
    state: 'attached',
    timeout: 120_000,
  });
}

/** What a plot's element says it drew (its `data-*`). */
async function dataset(page: Page, selector: string): Promise<Record<string, string | undefined>> {
  const names = [
    'points',
    'unit',
    'lastMarginalUj',
    'lastAverageUj',
    'lastLowUj',
    'lastHighUj',
    'line',
    'idle',
  ];
  const out: Record<string, string | undefined> = {};
  for (const n of names) {
    const attr = `data-${n.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
    out[n] = (await page.getAttribute(selector, attr)) ?? undefined;
  }
  return out;
}

async function account(url: string): Promise<EnergyAccountJson> {
  const res = await fetch(url);
  expect(res.status, url).toBe(200);
  const read = readAccount(await res.text());
  if (!read.ok) throw read.refusal;
  return read.value;
}

describe.skipIf(!HAVE_CHROMIUM && process.env.CI !== 'true')('the Energy page in Chromium', () => {
  const clock = new TestClock(0n);
  let server: RunningServer;
  let remove: () => void;
  let browser: Browser;
  /** The default span's end: the last period settled when the page is read. */
  let end: bigint;

  beforeAll(async () => {
    const dir = tempDir();
    remove = dir.remove;
    const setup = setupDemo(dir.dir, { port: await freePort(), periodMs: P_MS, budgets: false });
    const config = loadConfig(setup.configPath);
    const L = setup.policy.lag_us;
    // The day ends at the last whole period before the wall clock; the room clock walks it.
    end = ((BigInt(Date.now()) * 1000n) / P) * P;
    const start = end - BigInt(DAY) * P;
    clock.us = start;
    // A session counts for an hour after its decision (TTL + grace): placed sessions build up.
    const sessions = { ...config.sessions, grace: 3_600_000 };
    server = await startServer(
      { ...config, sessions, store: { ...config.store, path: ':memory:' } },
      { clock: clock.now },
    );
    const sim = new HopSimulator({
      policy: setup.policy,
      roomId: setup.roomId,
      hops: setup.hops,
      base: server.url,
      clock: clock.now,
    });
    const seconds = Number(P) / 1e6;
    let refused = 0;
    for (let k = 0; k < DAY; k++) {
      const at = start + BigInt(k) * P;
      // The period's players steered in its first half, each a new session.
      const n = steered(k);
      for (let i = 0; i < n; i++) {
        clock.us = at + (BigInt(i) * P) / BigInt(2 * n) + 1_000_000n;
        const res = await fetch(setup.policy.server_uri);
        expect(res.status).toBe(200);
        await res.arrayBuffer();
      }
      // Each pathway serves the sessions the server placed there at the period's midpoint, and
      // those it does not steer; its hops' records follow the demo's power model.
      clock.us = at + P / 2n;
      const loads = server.engine.loadsNow();
      const audience = unsteered(k).map((u, p) => u + (loads[p] ?? 0));
      const delivered = audience.map((a) => sim.delivered(a, seconds));
      clock.us = at + P + L;
      const posts = setup.hops.map(async (hop) => {
        const body = sim.record(hop, at, at + P, audience[hop.pathway]!, delivered[hop.pathway]);
        const res = await fetch(`${server.url}/records`, { method: 'POST', body });
        if (res.status !== 201) refused++;
        await res.arrayBuffer();
      });
      await Promise.all(posts);
    }
    expect(refused).toBe(0);
    // The room clock stays past the day's last period and its lag: the default span is the day.
    clock.us = end + L + 1_000_000n;
    browser = await launch();
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    remove?.();
  });

  it('states the day’s account and draws its savings, each pathway’s figures, fits and sessions', async () => {
    const a = await account(`${server.url}/energy`);
    expect([a.from, a.to]).toEqual([String(end - BigInt(DAY) * P), String(end)]);
    // What the day made: cdn-a and cdn-b fitted; cdn-b-east with its unmetered hop never usable.
    const [cdnA, cdnB, east] = a.pathways;
    expect(cdnA!.marginal_why).toBeNull();
    expect(cdnB!.marginal_why).toBeNull();
    expect(east!.marginal_why).toBe('too_few_periods');
    expect(a.saved_marginal_uj).not.toBeNull();
    expect(BigInt(a.saved_marginal_uj!)).toBeGreaterThan(0n);

    const { page, errors } = await browser.page();
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.goto(`${server.url}/console/energy`);
    await ready(page, 'true');

    // The headline figures are the account's, to the unit.
    expect(await page.getAttribute('[data-kpi="marginal"] .kpi-big', 'data-value')).toBe(
      a.saved_marginal_uj,
    );
    expect(await page.getAttribute('[data-kpi="average"] .kpi-big', 'data-value')).toBe(
      a.saved_average_uj,
    );
    await expect
      .poll(() => page.textContent('[data-kpi="marginal"]'))
      .toMatch(/95 % interval .+ to .+/);

    // The cumulative plot: a point at the span's start and at each bucket's end, ending at the
    // account's savings (its figures rounded to the pJ per unit: within 10^-4).
    const saved = await dataset(page, '#chart-saved');
    expect(Number(saved.points)).toBeGreaterThan(300);
    const near = (x: string | undefined, want: number) =>
      expect(Math.abs(Number(x) - want)).toBeLessThanOrEqual(Math.abs(want) * 1e-4 + 1);
    near(saved.lastMarginalUj, Number(a.saved_marginal_uj));
    near(saved.lastAverageUj, Number(a.saved_average_uj));
    near(saved.lastLowUj, a.saved_marginal_ci95_uj![0]);
    near(saved.lastHighUj, a.saved_marginal_ci95_uj![1]);
    expect(await page.locator('#chart-saved canvas').count()).toBe(1);
    // The marginal view alone, at its own scale: the same curve and band, no average view.
    const marginal = await dataset(page, '#chart-marginal');
    expect(marginal.points).toBe(saved.points);
    near(marginal.lastMarginalUj, Number(a.saved_marginal_uj));
    near(marginal.lastHighUj, a.saved_marginal_ci95_uj![1]);
    expect(marginal.lastAverageUj).toBeUndefined();
    expect(Number(marginal.unit === 'Wh' || marginal.unit === 'kWh')).toBe(1);

    // Each pathway's average beside its marginal figure, exact on hover.
    for (const p of [cdnA!, cdnB!]) {
      const row = page.locator(`#views [data-pathway="${p.id}"]`);
      expect(await row.locator('[data-view="average"]').getAttribute('data-pj')).toBe(
        p.average_pj_per_unit,
      );
      expect(await row.locator('[data-view="marginal"]').getAttribute('data-pj')).toBe(
        p.marginal_pj_per_unit,
      );
      expect(await row.locator('title').first().textContent()).toContain('pJ/B');
    }
    expect(
      await page
        .locator('#views [data-pathway="cdn-b-east"] [data-view="marginal"]')
        .getAttribute('data-none'),
    ).toMatch(/^no marginal figure: no usable period/);
    expect(await page.textContent('#pathways tr[data-pathway="cdn-b-east"] .why-null')).toMatch(
      /no usable period/,
    );

    // Each fit: its sampled usable periods, its line and its idle level; none for cdn-b-east.
    for (const p of [cdnA!, cdnB!]) {
      const fit = await dataset(page, `#fits figure[data-pathway="${p.id}"] .fit-plot`);
      expect(Number(fit.points)).toBeGreaterThan(100);
      expect(fit.line).toBe('true');
      expect(fit.idle).toBe('true');
    }
    expect(await page.textContent('#fits figure[data-pathway="cdn-b-east"]')).toMatch(
      /No usable period to plot/,
    );

    // Placed against served, each the account's.
    for (const p of a.pathways) {
      const row = page.locator(`#sessions [data-pathway="${p.id}"]`);
      expect(await row.locator('[data-kind="served"]').getAttribute('data-value')).toBe(
        p.sessions_served,
      );
      if (p.periods > 0) {
        expect(await row.locator('[data-kind="placed"]').getAttribute('data-value')).toBe(
          p.sessions_placed,
        );
      }
    }
    expect(BigInt(cdnA!.sessions_placed!) + BigInt(cdnB!.sessions_placed!)).toBeGreaterThan(0n);

    // The method, one click away.
    await page.click('#method summary');
    expect(await page.isVisible('#method p')).toBe(true);
    await page.click('#method summary');

    mkdirSync(OUT, { recursive: true });
    await page.screenshot({ path: join(OUT, 'energy.png'), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('changes span: the last hour is its 30 periods, ending where the day ends', async () => {
    const { page, errors } = await browser.page();
    await page.goto(`${server.url}/console/energy`);
    await ready(page, 'true');
    await page.selectOption('#span', '1h');
    await page.waitForURL(/span=1h/);
    await ready(page, 'true');
    const a = await account(`${server.url}/energy?from=${end - 30n * P}&to=${end}`);
    expect(await page.getAttribute('[data-kpi="average"] .kpi-big', 'data-value')).toBe(
      a.saved_average_uj,
    );
    expect(await page.textContent('#span-text')).toMatch(/1 h, 30 periods of 2 min/);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('is linked from the console, and says a span the server refuses in its line', async () => {
    const { page } = await browser.page();
    await page.goto(`${server.url}/console/`);
    await page.click('nav a[href="./energy"]');
    await page.waitForURL(/\/console\/energy$/);
    await ready(page, 'true');
    await page.goto(`${server.url}/console/energy?from=${end - P + 1n}&to=${end}`);
    await ready(page, 'failed');
    expect(await page.textContent('#problem')).toMatch(/is not a multiple of the policy's period/);
    await page.close();
  });
});
