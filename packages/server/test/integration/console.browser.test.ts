// The operator console and the verifier page in a real browser (Debian's Chromium through
// playwright-core), against a running server with the demo's room and hops: the console shows
// what /status and the server's own state say, its plots draw, a pathway whose hops stop shows
// as stale with the hop and the period named; the verifier accepts a served decision and refuses
// one with a byte flipped; the access protection holds. Screenshots go to test-output/console/.
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fetchAndVerify } from '@wai-steering/verifier';
import { readDecision, toHex, unwrap } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerConfig } from '../../src/config/read.js';
import { consoleDistDir, readConsoleAssets } from '../../src/console/assets.js';
import { HopSimulator } from '../../src/demo/simulator.js';
import { SiteSimulator } from '../../src/demo/site.js';
import { monotonicClock } from '../../src/engine/clock.js';
import { type RunningServer, startServer } from '../../src/server.js';
import { type Browser, HAVE_CHROMIUM, launch } from '../helpers/chromium.js';
import { demoRoom, freePort } from '../helpers/setup.js';

const OUT = join(import.meta.dirname, '..', 'test-output', 'console');
/** A long period, so that the window holds still while the page and the test read it. */
const P_MS = 60_000;
const P = BigInt(P_MS) * 1000n;
const MEMBER = 'science.transaction.wai-decision';

/** The room clock: the monotonic clock, shifted so that the test decides where the window is. */
class ShiftClock {
  private readonly base = monotonicClock();
  offset = 0n;
  readonly now = (): bigint => this.base() + this.offset;
}

interface StatusJson {
  pathways: {
    id: string;
    status: string;
    order: number;
    load: number;
    joules_uj: string;
    delivery: string;
    figure: { value: number; text: string } | null;
    stale: {
      hops: {
        index: number;
        key: string;
        problems: { kind: string; start: string; end: string }[];
      }[];
    } | null;
  }[];
  window: { a: string; b: string };
}

async function getJson<T>(url: string, headers: Record<string, string> = {}): Promise<T> {
  const res = await fetch(url, { headers });
  expect(res.status, url).toBe(200);
  return (await res.json()) as T;
}

/** The UTC clock time the pages write for a room-clock instant. */
function clockTime(us: bigint): string {
  return new Date(Number(us / 1000n)).toISOString().slice(11, 23);
}

async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  await page.screenshot({ path: join(OUT, name), fullPage: true });
}

/** Pixels of a canvas near one of `colours` (the plot's series), counted in the page. */
async function seriesPixels(page: Page, selector: string, colours: string[]): Promise<number> {
  return page.evaluate(
    ({ selector, colours }) => {
      // Runs in the page; typed here without the DOM library (the server's tests are Node's).
      interface Canvas {
        width: number;
        height: number;
        getContext(kind: '2d'): {
          getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
        } | null;
      }
      const doc = (globalThis as unknown as { document: { querySelector(s: string): unknown } })
        .document;
      const canvas = doc.querySelector(selector) as Canvas | null;
      if (canvas === null) return -1;
      const ctx = canvas.getContext('2d');
      if (ctx === null) return -1;
      const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
      const rgb = colours.map((c) => [1, 3, 5].map((i) => Number.parseInt(c.slice(i, i + 2), 16)));
      let n = 0;
      for (let i = 0; i < data.length; i += 4) {
        if (data[i + 3]! < 200) continue;
        for (const [r, g, b] of rgb) {
          if (
            Math.abs(data[i]! - r!) + Math.abs(data[i + 1]! - g!) + Math.abs(data[i + 2]! - b!) <
            40
          ) {
            n++;
            break;
          }
        }
      }
      return n;
    },
    { selector, colours },
  );
}

/**
 * The x axis's tick labels a plot last drew (`data-x-ticks`, written by the page), each with its
 * position and its width measured in the page in the axis's font.
 */
async function tickLabels(
  page: Page,
  selector: string,
): Promise<{ label: string; x: number; width: number }[]> {
  await expect
    .poll(() => page.getAttribute(selector, 'data-x-ticks'), { timeout: 15_000 })
    .toMatch(/label/);
  return page.evaluate((selector) => {
    // Runs in the page; typed here without the DOM library (the server's tests are Node's).
    const doc = (
      globalThis as unknown as {
        document: {
          querySelector(s: string): { getAttribute(a: string): string | null } | null;
          createElement(t: 'canvas'): {
            getContext(k: '2d'): { font: string; measureText(t: string): { width: number } };
          };
        };
      }
    ).document;
    const ticks = JSON.parse(doc.querySelector(selector)!.getAttribute('data-x-ticks')!) as {
      label: string;
      x: number;
    }[];
    const ctx = doc.createElement('canvas').getContext('2d');
    ctx.font = '11px system-ui, sans-serif';
    return ticks
      .filter((t) => t.label !== '')
      .map((t) => ({ ...t, width: ctx.measureText(t.label).width }));
  }, selector);
}

/** A static server: the console's build as anyone would host it, and a tampered decision. */
function hostStandalone(upstream: string): Promise<{ url: string; server: Server }> {
  const dir = consoleDistDir();
  if (dir === undefined) throw new Error('the console is not built');
  const files = readConsoleAssets(dir);
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const cors = { 'access-control-allow-origin': '*' };
    const tampered = /^\/decisions\/([0-9a-f]{64})$/.exec(path);
    const proxied = /^\/(records|policies|rooms)\//.test(path);
    if (tampered !== null || proxied) {
      fetch(`${upstream}${path}`).then(
        async (r) => {
          const body = new Uint8Array(await r.arrayBuffer());
          // One byte flipped: the low byte of the decision's t (§7.1 offset 101), so that it
          // still reads and only its signature fails.
          if (tampered !== null && r.ok) body[101]! ^= 0x01;
          res.writeHead(r.status, { ...cors, 'content-type': 'application/octet-stream' });
          res.end(body);
        },
        () => {
          res.writeHead(502, cors);
          res.end();
        },
      );
      return;
    }
    const file = files.get(path.slice(1) === '' ? 'verify.html' : path.slice(1));
    if (file === undefined) {
      res.writeHead(404, cors);
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': file.type });
    res.end(file.bytes);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}`, server });
    });
  });
}

describe.skipIf(!HAVE_CHROMIUM && process.env.CI !== 'true')('the console in Chromium', () => {
  const clock = new ShiftClock();
  let server: RunningServer;
  let config: ServerConfig;
  let remove: () => void;
  let sim: HopSimulator;
  let policy: ReturnType<typeof demoRoom>['setup']['policy'];
  let hops: ReturnType<typeof demoRoom>['setup']['hops'];
  let browser: Browser;
  let standalone: { url: string; server: Server };
  /** The period end k·P after which the window [(k − 3)P, kP) holds. */
  let k: bigint;
  const expectedLoads = [0, 0, 0];
  const decisionUris: string[] = [];

  beforeAll(async () => {
    const room = demoRoom(await freePort(), P_MS);
    remove = room.remove;
    policy = room.setup.policy;
    hops = room.setup.hops;
    // Sessions stay counted for the whole test (TTL + an hour of grace).
    config = { ...room.config, sessions: { ...room.config.sessions, grace: 3_600_000 } };
    // Put the room clock half a second past a window move: the window holds for P − 0.5 s.
    const L = policy.lag_us;
    const now = clock.now();
    k = (now - L) / P + 1n;
    clock.offset = k * P + L + 500_000n - now;
    server = await startServer(config, { clock: clock.now });
    sim = new HopSimulator({
      policy,
      roomId: room.setup.roomId,
      hops,
      base: server.url,
      clock: clock.now,
      loads: () => server.engine.sessions.loads,
    });
    for (const end of [k - 2n, k - 1n, k]) await sim.period(end * P);
    expect(sim.refused).toBe(0);
    standalone = await hostStandalone(server.url);
    browser = await launch();
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((r) => standalone?.server.close(r));
    await server?.close();
    remove?.();
  });

  it('shows the three pathways with the figures and loads of /status and of the server itself', async () => {
    // N sessions steered, each new; the manifests say where each was placed first.
    const queries = [
      '',
      '?_HLS_pathway="cdn-a"&_HLS_throughput=700000',
      '?_HLS_pathway="cdn-b-east"&_HLS_throughput=700000',
      '?_DASH_pathway="cdn-b"&_DASH_throughput=5000000',
    ];
    const ids = policy.pathways.map((p) => p.id);
    for (let i = 0; i < 12; i++) {
      const res = await fetch(`${policy.server_uri}${queries[i % queries.length]}`);
      expect(res.status).toBe(200);
      const manifest = (await res.json()) as Record<string, unknown>;
      const first = (manifest['PATHWAY-PRIORITY'] as string[])[0]!;
      expectedLoads[ids.indexOf(first)]!++;
      decisionUris.push(manifest[MEMBER] as string);
    }
    expect(Array.from(server.engine.sessions.loads)).toEqual(expectedLoads);
    expect(expectedLoads.filter((n) => n > 0).length).toBeGreaterThanOrEqual(2);

    const status = await getJson<StatusJson>(`${server.url}/status`);
    expect(status.pathways.map((p) => p.id)).toEqual(['cdn-a', 'cdn-b', 'cdn-b-east']);
    expect(status.pathways.map((p) => p.load)).toEqual(expectedLoads);
    // J and D as a decision of this window states them, verified from what the server serves.
    const verified = await fetchAndVerify(decisionUris.at(-1)!, { backend: nodeBackend });
    expect(verified.outcome.outcome).toBe('accept');
    if (verified.outcome.outcome !== 'accept') return;
    verified.outcome.pathways.forEach((p, i) => {
      expect(status.pathways[i]!.joules_uj).toBe(p.joules);
      expect(status.pathways[i]!.delivery).toBe(p.delivery);
    });

    const { page, errors } = await browser.page();
    await page.goto(`${server.url}/console/`);
    await page.waitForSelector('body[data-ready="true"]');
    for (const p of status.pathways) {
      const card = page.locator(`[data-pathway="${p.id}"]`);
      await expect
        .poll(() => card.locator('[data-testid="load"]').textContent())
        .toBe(String(p.load));
      expect(await card.getAttribute('data-status')).toBe(p.status);
      expect(await card.locator('[data-testid="status"]').textContent()).toBe(p.status);
      // One word for the order, numbered as people count: 1 of 3 is first.
      expect(await card.locator('[data-testid="order"]').textContent()).toBe(
        `${p.order} of ${status.pathways.length}`,
      );
      // No second word or number for it beside (a "rank 4" beside "order #3" of three).
      expect(await card.textContent()).not.toMatch(/\brank\b|#\d/);
      const figure = await card.locator('[data-testid="figure"]').textContent();
      if (p.figure === null) {
        expect(figure).toBe('no figure');
      } else {
        expect(figure).toBe(p.figure.text);
        // J/GB from J (µJ) and D (bytes): J × 10^3 / D, its last digit cut off, never rounded up.
        const jPerGb = (Number(p.joules_uj) * 1e3) / Number(p.delivery);
        const shown = Number.parseFloat(figure!);
        const digit = 10 ** -(figure!.split(' ')[0]!.split('.')[1]?.length ?? 0);
        expect(jPerGb - shown).toBeGreaterThan(-1e-9);
        expect(jPerGb - shown).toBeLessThan(digit);
      }
    }
    // Live capacity is off: no card shows it.
    expect(await page.locator('[data-testid="live"]').count()).toBe(0);
    // The demo's statuses: cdn-a and cdn-b have figures, cdn-b-east has an unmetered hop.
    expect(status.pathways.map((p) => p.status)).toEqual(['figure', 'figure', 'unmetered']);
    // The plots: each canvas shows its series, not only its axes.
    const colours = ['#0072b2', '#e69f00', '#009e73', '#cc79a7', '#d55e00', '#56b4e9'];
    for (const id of ['chart-decisions', 'chart-loads', 'chart-share']) {
      await expect
        .poll(() => seriesPixels(page, `#${id} canvas`, colours), { timeout: 15_000 })
        .toBeGreaterThan(30);
    }
    // Why cdn-b-east has no figure: the hop that signed the unmetered marker, named on its card.
    const east = page.locator('[data-pathway="cdn-b-east"] [data-testid="why-nofigure"]');
    expect(await east.textContent()).toMatch(/^Unmetered: a hop signed the unmetered marker/);
    expect(await east.locator('li').count()).toBe(1);
    // The time axes: 24-hour UTC clock times (the page's one form), labels apart from each other.
    for (const id of ['chart-decisions', 'chart-loads', 'chart-share']) {
      const ticks = await tickLabels(page, `#${id}`);
      expect(ticks.length, id).toBeGreaterThan(1);
      const utc = new Date().toISOString().slice(11, 13);
      for (const t of ticks) {
        expect(t.label).toMatch(/^\d\d:\d\d(:\d\d)?$/);
        // Within an hour of the UTC hour now (the plots span the last minutes).
        expect(Math.abs(Number(t.label.slice(0, 2)) - Number(utc)) % 23).toBeLessThanOrEqual(1);
      }
      for (let i = 1; i < ticks.length; i++) {
        const gap = ticks[i]!.x - ticks[i - 1]!.x;
        expect(gap, `${id}: ${ticks[i - 1]!.label} and ${ticks[i]!.label}`).toBeGreaterThan(
          (ticks[i - 1]!.width + ticks[i]!.width) / 2 + 4,
        );
      }
    }
    // The recent decisions, the newest first, each linking to the verifier.
    const links = page.locator('#decisions a');
    expect(await links.count()).toBe(12);
    const href = await links.first().getAttribute('href');
    expect(decodeURIComponent(href!.split('uri=')[1]!)).toBe(decisionUris.at(-1));
    await shot(page, 'console.png');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('its legends, as a person with deuteranopia sees them: a screenshot kept, the colours drawn', async () => {
    const { page, errors } = await browser.page();
    await page.goto(`${server.url}/console/`);
    await page.waitForSelector('body[data-ready="true"]');
    // The colours the legends draw are the palette the console's test holds apart under
    // simulated colour-vision deficiencies (packages/console/test/colours.test.ts).
    await expect
      .poll(() => page.locator('#chart-decisions .u-legend .u-marker').count(), { timeout: 15_000 })
      .toBeGreaterThan(0);
    const markers = await page.$$eval('.u-legend .u-marker', (els) =>
      els.map(
        (e) =>
          (
            globalThis as unknown as { getComputedStyle(e: unknown): { borderColor: string } }
          ).getComputedStyle(e).borderColor,
      ),
    );
    const palette = ['#0072b2', '#e69f00', '#009e73', '#cc79a7', '#d55e00', '#56b4e9'].map(
      (c) => `rgb(${[1, 3, 5].map((i) => Number.parseInt(c.slice(i, i + 2), 16)).join(', ')})`,
    );
    expect(markers.length).toBeGreaterThan(0);
    for (const m of markers) expect(palette).toContain(m);
    // The whole page through Machado et al.'s deuteranopia matrix (an SVG filter on linear
    // RGB), kept as the test's artefact for a person to look at.
    await page.evaluate(`{
      const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
      svg.setAttribute('width', '0');
      svg.setAttribute('height', '0');
      svg.innerHTML =
        '<filter id="deuteranopia" color-interpolation-filters="linearRGB"><feColorMatrix type="matrix" values="0.367322 0.860646 -0.227968 0 0 0.280085 0.672501 0.047413 0 0 -0.011820 0.042940 0.968881 0 0 0 0 0 1 0"/></filter>';
      document.body.append(svg);
      document.documentElement.style.filter = 'url(#deuteranopia)';
    }`);
    await shot(page, 'console-deuteranopia.png');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('the verifier page accepts a served decision, as the CLI does', async () => {
    const uri = decisionUris[0]!;
    const cli = await fetchAndVerify(uri, { backend: nodeBackend });
    expect(cli.outcome.outcome).toBe('accept');
    if (cli.outcome.outcome !== 'accept') return;
    const { page, errors } = await browser.page();
    await page.goto(`${server.url}/console/verify?uri=${encodeURIComponent(uri)}`);
    await page.waitForSelector('[data-outcome]', { timeout: 30_000 });
    expect(await page.getAttribute('[data-outcome]', 'data-outcome')).toBe('accept');
    expect(await page.textContent('[data-testid="reason"]')).toBe(cli.outcome.reason);
    expect(await page.textContent('[data-testid="first"]')).toBe(cli.outcome.priority[0]);
    const text = (await page.textContent('#result'))!;
    expect(text).toContain(
      server.engine.room.room.authority.reduce((s, b) => s + b.toString(16).padStart(2, '0'), ''),
    );
    await shot(page, 'verify-accepted.png');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('the verifier page shows where the decision is in the decision log, verified', async () => {
    const uri = decisionUris[0]!;
    const digest = uri.slice(-64);
    // Logged within the log's max_delay (2 s by default): its proof is 200 then.
    for (let i = 0; i < 600; i++) {
      if ((await fetch(`${server.url}/log/proof/${digest}`)).status === 200) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const { page, errors } = await browser.page();
    await page.goto(`${server.url}/console/verify?uri=${encodeURIComponent(uri)}`);
    await page.waitForSelector('[data-testid="log"][data-log="logged"]', { timeout: 30_000 });
    const text = (await page.textContent('[data-testid="log-text"]'))!;
    expect(text).toMatch(
      /^In the decision log 127\.0\.0\.1:\d+\/log at index \d+, in the checkpoint of \d+ entries signed by [0-9a-f]{64}: inclusion proof verified\.$/,
    );
    // Signed by the key that signs the decisions (every decision names it).
    const decision = unwrap(readDecision(new Uint8Array(await (await fetch(uri)).arrayBuffer())));
    expect(text).toContain(` signed by ${toHex(decision.signer)}:`);
    await shot(page, 'verify-logged.png');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('the verifier page pins a room: the right one is trusted, another is not', async () => {
    const roomId = Buffer.from(server.engine.room.roomId).toString('hex');
    const { page, errors } = await browser.page();
    const uri = encodeURIComponent(decisionUris[3]!);
    await page.goto(`${server.url}/console/verify?uri=${uri}&room=${roomId}`);
    await page.waitForSelector('[data-outcome]');
    expect(await page.getAttribute('[data-outcome]', 'data-outcome')).toBe('accept');
    expect(await page.textContent('[data-testid="trusted"]')).toContain(roomId);
    await page.close();
    expect(errors).toEqual([]);
    // Another room: the server has no descriptor of it, so nothing is verified, and the page
    // says which room the server serves.
    const other = await browser.page();
    await other.page.goto(`${server.url}/console/verify?uri=${uri}&room=${'cd'.repeat(32)}`);
    await other.page.waitForSelector('[data-outcome="error"]');
    expect(await other.page.textContent('[data-outcome="error"]')).toContain(
      `This server serves room ${roomId}, not the pinned room ${'cd'.repeat(32)}`,
    );
    expect(other.errors.every((e) => /status of 404/.test(e))).toBe(true);
    await other.page.close();
  });

  it('the standalone verifier refuses a decision with one byte flipped: bad_signature at decision', async () => {
    const { page, errors } = await browser.page();
    // The same build hosted elsewhere verifies the real decision across origins...
    await page.goto(`${standalone.url}/verify.html?uri=${encodeURIComponent(decisionUris[1]!)}`);
    await page.waitForSelector('[data-outcome]', { timeout: 30_000 });
    expect(await page.getAttribute('[data-outcome]', 'data-outcome')).toBe('accept');
    // ...and refuses the tampered one.
    const hex = decisionUris[1]!.slice(-64);
    await page.goto(
      `${standalone.url}/verify.html?uri=${encodeURIComponent(`${standalone.url}/decisions/${hex}`)}`,
    );
    await page.waitForSelector('[data-outcome="refuse"]', { timeout: 30_000 });
    expect(await page.textContent('[data-testid="reason"]')).toBe('bad_signature');
    expect(await page.textContent('[data-testid="where"]')).toBe('decision');
    await shot(page, 'verify-refused.png');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('the verifier page verifies the files of a decision dropped on it, offline', async () => {
    const uri = decisionUris[2]!;
    const fetched = await fetchAndVerify(uri, { backend: nodeBackend });
    expect(fetched.outcome.outcome).toBe('accept');
    const get = async (url: string) => Buffer.from(await (await fetch(url)).arrayBuffer());
    const decision = await get(uri);
    const roomHex = decision.subarray(5, 37).toString('hex');
    const policyHex = decision.subarray(69, 101).toString('hex');
    const { readDecision } = await import('@wai-steering/wire');
    const read = readDecision(new Uint8Array(decision));
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    const named = read.value.pathways.flatMap((p) => p.evidence);
    const files = [
      { name: 'decision.wsd', mimeType: 'application/octet-stream', buffer: decision },
      {
        name: 'policy.wsp',
        mimeType: 'application/octet-stream',
        buffer: await get(`${server.url}/policies/${policyHex}`),
      },
      {
        name: 'room.wrd',
        mimeType: 'application/octet-stream',
        buffer: await get(`${server.url}/rooms/${roomHex}/descriptor`),
      },
      {
        name: 'key-log.wkl',
        mimeType: 'application/octet-stream',
        buffer: await get(`${server.url}/rooms/${roomHex}/key-log`),
      },
      ...(await Promise.all(
        named.map(async (d, i) => ({
          name: `record-${i}.wmh`,
          mimeType: 'application/octet-stream',
          buffer: await get(`${server.url}/records/${Buffer.from(d).toString('hex')}`),
        })),
      )),
    ];
    const { page, errors } = await browser.page();
    await page.goto(`${standalone.url}/verify.html`);
    await page.setInputFiles('#files', files);
    await expect.poll(() => page.locator('#file-list li').count()).toBe(files.length);
    await page.click('#verify-files');
    await page.waitForSelector('[data-outcome]');
    expect(await page.getAttribute('[data-outcome]', 'data-outcome')).toBe('accept');
    if (fetched.outcome.outcome === 'accept') {
      expect(await page.textContent('[data-testid="reason"]')).toBe(fetched.outcome.reason);
    }
    // A room pinned that is not the room given: nothing is verified.
    await page.fill('#room', 'ab'.repeat(32));
    await page.click('#verify-files');
    await page.waitForSelector('[data-outcome="error"]');
    expect(await page.textContent('[data-outcome="error"]')).toContain('not the pinned room');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a pathway whose hops stopped shows as stale, with the hops and the period named', async () => {
    // One period later: every hop but cdn-a's signs it.
    clock.offset += P;
    const others = new HopSimulator({
      policy,
      roomId: policy.room,
      hops: hops.filter((h) => h.pathway !== 0),
      base: server.url,
      clock: clock.now,
    });
    await others.period((k + 1n) * P);
    expect(others.refused).toBe(0);
    const status = await getJson<StatusJson>(`${server.url}/status`);
    const a = status.pathways[0]!;
    expect(a.status).toBe('stale');
    const keys = policy.pathways[0]!.hops.map((h) => Buffer.from(h.key).toString('hex'));
    expect(a.stale!.hops.map((h) => h.key)).toEqual(keys);
    for (const h of a.stale!.hops) {
      expect(h.problems).toEqual([
        { kind: 'missing', start: String(k * P), end: String((k + 1n) * P) },
      ]);
    }
    expect(status.pathways.slice(1).map((p) => p.status)).toEqual(['figure', 'unmetered']);

    const { page, errors } = await browser.page();
    await page.goto(`${server.url}/console/`);
    const card = page.locator('[data-pathway="cdn-a"]');
    await expect.poll(() => card.getAttribute('data-status')).toBe('stale');
    const why = (await card.locator('[data-testid="why-stale"]').textContent())!;
    expect(why).toContain(`hop 1 (edge, ${keys[0]!.slice(0, 8)}`);
    expect(why).toContain(`hop 2 (interior, ${keys[1]!.slice(0, 8)}`);
    expect(why).toContain(`no record of 1 period ${clockTime(k * P)}–${clockTime((k + 1n) * P)}`);
    // The hops table marks cdn-a's hops late.
    for (const key of keys) {
      expect(await page.locator(`tr[data-hop="${key}"] td.late`).count()).toBeGreaterThan(0);
    }
    await shot(page, 'console-stale.png');
    expect(errors).toEqual([]);
    await page.close();
  });
  it('the verifier page takes a steering URL: the manifest, then its decision', async () => {
    const { page, errors } = await browser.page();
    const url = `${policy.server_uri}?_HLS_pathway="cdn-b"&_HLS_throughput=5000000`;
    await page.goto(`${server.url}/console/verify?uri=${encodeURIComponent(url)}`);
    await page.waitForSelector('[data-outcome]');
    expect(await page.getAttribute('[data-outcome]', 'data-outcome')).toBe('accept');
    const text = (await page.textContent('#result'))!;
    expect(text).toContain('the manifest served with it is the one it writes');
    expect(text).toContain('a steering URL');
    // The decision was just made: no checkpoint holds it yet (its proof is answered 404, which
    // the browser reports as a failed load; nothing else may fail).
    await page.waitForSelector('[data-testid="log"]:not([data-log="checking"])');
    const log = await page.getAttribute('[data-testid="log"]', 'data-log');
    expect(['not_yet', 'logged']).toContain(log);
    if (log === 'not_yet') {
      expect(await page.textContent('[data-testid="log-text"]')).toMatch(
        /^Not in the decision log yet: no checkpoint holds it \(the server says to ask again in \d+ s\)\.$/,
      );
    }
    expect(errors.filter((e) => !/status of 404/.test(e))).toEqual([]);
    expect(errors.length).toBeLessThanOrEqual(1);
    await page.close();
  });
});

describe.skipIf(!HAVE_CHROMIUM && process.env.CI !== 'true')(
  'the console with live capacity',
  () => {
    let remove: () => void;
    let server: RunningServer;
    let site: SiteSimulator;
    let browser: Browser;
    // How far the standing room clock is moved on (each report must be newer than the last).
    let advance = 0n;

    beforeAll(async () => {
      const room = demoRoom(await freePort(), 2000);
      remove = room.remove;
      // The room clock stands still: the report posted below (good for 6 s of the room clock)
      // cannot expire while a slow machine loads the page that shows it.
      const start = monotonicClock()();
      const clock = (): bigint => start + advance;
      server = await startServer(
        {
          ...room.config,
          listen: { host: '127.0.0.1', port: 0 },
          store: { ...room.config.store, path: ':memory:' },
          live: {
            pathways: ['cdn-b'],
            capacityThresholdPpm: 0,
            latencyThresholdMs: 10,
            maxAhead: 5000,
          },
        },
        { clock },
      );
      const pathway = room.setup.policy.pathways.findIndex((p) => p.id === 'cdn-b');
      site = new SiteSimulator({
        base: server.url,
        roomId: room.setup.roomId,
        pathway: 'cdn-b',
        hop: room.setup.hops.find((h) => h.pathway === pathway && h.place === 1)!,
        periodUs: room.setup.policy.period_us,
        clock,
      });
      browser = await launch();
    });

    afterAll(async () => {
      await browser?.close();
      await server?.close();
      remove?.();
    });

    it("each card shows its live capacity, the capacity's source and its newest report's age", async () => {
      const res = await fetch(`${server.url}/capacity`, {
        method: 'POST',
        headers: { 'content-type': 'application/jose' },
        body: await site.sign(7),
      });
      expect(res.status, await res.text()).toBe(201);
      interface LiveJson {
        pathways: {
          id: string;
          live: { source: string; capacity: number | null; latency_ms: number } | null;
        }[];
      }
      const status = await getJson<LiveJson>(`${server.url}/status`);
      expect(status.pathways.map((p) => p.live?.source)).toEqual([
        'template',
        'reports',
        'template',
      ]);

      const { page, errors } = await browser.page();
      await page.goto(`${server.url}/console/`);
      await page.waitForSelector('body[data-ready="true"]');
      for (const p of status.pathways) {
        const live = page.locator(`[data-pathway="${p.id}"] [data-testid="live"]`);
        expect(await live.getAttribute('data-source')).toBe(p.live!.source);
        expect(await live.locator('[data-testid="live-source"]').textContent()).toBe(
          p.live!.source,
        );
        // A policy's capacity 2^32 − 1 sets no limit (§3.2): null in /status.
        expect(await live.locator('[data-testid="live-capacity"]').textContent()).toBe(
          p.live!.capacity === null ? 'no limit' : String(p.live!.capacity),
        );
        expect(await live.locator('[data-testid="live-latency"]').textContent()).toBe(
          `${p.live!.latency_ms} ms`,
        );
        const age = await live.locator('[data-testid="live-age"]').textContent();
        if (p.live!.source === 'template') expect(age).toBe('never');
        else expect(age).toMatch(/^(just now|\d+ s ago)$/);
      }
      // cdn-b's capacity is its one site's slots; a template's 2^32 − 1 (no limit) is null.
      expect(status.pathways[1]!.live!.capacity).toBe(7);
      const noLimit = server.engine.policy.pathways.map((q) => q.capacity === 0xffff_ffff);
      expect(status.pathways.map((q) => q.live!.capacity === null)).toEqual(noLimit);
      expect(noLimit).toContain(true);
      await shot(page, 'console-live.png');
      expect(errors).toEqual([]);
      await page.close();
    });

    it('a full pathway says so, and where new sessions go instead', async () => {
      // The site reports no free slot: cdn-b's live capacity is 0, and it is full. The room
      // clock moves on a period first: the server signs at most one live policy a period.
      advance += server.engine.policy.period_us;
      const res = await fetch(`${server.url}/capacity`, {
        method: 'POST',
        headers: { 'content-type': 'application/jose' },
        body: await site.sign(0),
      });
      expect(res.status, await res.text()).toBe(201);
      interface FullJson {
        order: string[];
        pathways: {
          id: string;
          capacity: number | null;
          limits: Record<'latency' | 'quality' | 'capacity', { ok: boolean }>;
        }[];
      }
      // The server signs a policy whose capacity follows the report (live policy).
      let status = await getJson<FullJson>(`${server.url}/status`);
      await expect
        .poll(
          async () => {
            status = await getJson<FullJson>(`${server.url}/status`);
            const b = status.pathways.find((p) => p.id === 'cdn-b')!;
            return [b.capacity, b.limits.capacity.ok];
          },
          { timeout: 30_000 },
        )
        .toEqual([0, false]);
      // New sessions go to the first pathway of the order within every limit (§6.4, rank).
      const within = (id: string) => {
        const p = status.pathways.find((x) => x.id === id)!;
        return p.limits.latency.ok && p.limits.quality.ok && p.limits.capacity.ok;
      };
      const to = status.order.find(within);
      expect(to).toBeDefined();
      expect(to).not.toBe('cdn-b');
      const { page, errors } = await browser.page();
      await page.goto(`${server.url}/console/`);
      await page.waitForSelector('body[data-ready="true"]');
      const card = page.locator('[data-pathway="cdn-b"]');
      await expect
        .poll(() => card.locator('[data-testid="full"]').textContent())
        .toBe(`full: new sessions go to ${to}`);
      expect(await card.textContent()).toMatch(/✗ full: \d+ of 0/);
      // Not the limit's condition as if it could hold ("✗ load < 0").
      expect(await card.textContent()).not.toContain('load < 0');
      // The other cards are not full.
      expect(await page.locator('[data-testid="full"]').count()).toBe(1);
      await shot(page, 'console-full.png');
      expect(errors).toEqual([]);
      await page.close();
    });
  },
);

describe.skipIf(!HAVE_CHROMIUM && process.env.CI !== 'true')('the console access control', () => {
  const TOKEN = 'console-test-token-0123456789';
  const USER = 'operator';
  const PASSWORD = 'a long console password';
  let remove: () => void;
  let steeringPath: string;
  const servers: RunningServer[] = [];
  let bearer: RunningServer;
  let basic: RunningServer;
  let off: RunningServer;

  beforeAll(async () => {
    const room = demoRoom(await freePort(), 2000);
    remove = room.remove;
    steeringPath = new URL(room.setup.policy.server_uri).pathname;
    const variant = (console: ServerConfig['console']): ServerConfig => ({
      ...room.config,
      listen: { host: '127.0.0.1', port: 0 },
      store: { ...room.config.store, path: ':memory:' },
      console,
    });
    bearer = await startServer(variant({ enabled: true, auth: { bearer: TOKEN } }));
    basic = await startServer(
      variant({ enabled: true, auth: { basic: { user: USER, password: PASSWORD } } }),
    );
    off = await startServer(variant({ enabled: false, auth: null }));
    servers.push(bearer, basic, off);
  });

  afterAll(async () => {
    for (const s of servers) await s.close();
    remove?.();
  });

  /** A decision steered and its digest's routes, which no console setting may touch. */
  async function steeringIsOpen(s: RunningServer): Promise<void> {
    const res = await fetch(`${s.url}${steeringPath}`);
    expect(res.status).toBe(200);
    const manifest = (await res.json()) as Record<string, string>;
    const hex = manifest[MEMBER]!.slice(-64);
    expect((await fetch(`${s.url}/decisions/${hex}`)).status).toBe(200);
    expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
  }

  it('a bearer token guards /status; the page asks for it; steering and by-digest routes are open', async () => {
    for (const path of ['/status', '/status/history']) {
      const none = await fetch(`${bearer.url}${path}`);
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toMatch(/^Bearer realm=/);
      const wrong = await fetch(`${bearer.url}${path}`, {
        headers: { authorization: `Bearer ${TOKEN}x` },
      });
      expect(wrong.status).toBe(401);
      const right = await fetch(`${bearer.url}${path}`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(right.status).toBe(200);
    }
    // Basic credentials are not a bearer token.
    const basicAuth = `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}`;
    expect(
      (await fetch(`${bearer.url}/status`, { headers: { authorization: basicAuth } })).status,
    ).toBe(401);
    await steeringIsOpen(bearer);

    const browser = await launch();
    try {
      const { page, errors } = await browser.page();
      await page.goto(`${bearer.url}/console/`);
      await page.waitForSelector('#auth:not([hidden])');
      await page.fill('#auth-token', 'not the token at all');
      await page.click('#auth-form button');
      await page.waitForSelector('#auth-error:not([hidden])');
      await page.fill('#auth-token', TOKEN);
      await page.click('#auth-form button');
      await page.waitForSelector('body[data-ready="true"]');
      expect(await page.locator('[data-pathway]').count()).toBe(3);
      // The only errors are the browser's notes of the two 401 answers.
      expect(errors.every((e) => /status of 401/.test(e))).toBe(true);
      await page.close();
    } finally {
      await browser.close();
    }
  });

  it('basic auth guards /status and the console page; the browser sends it once given', async () => {
    for (const path of ['/status', '/console/']) {
      const none = await fetch(`${basic.url}${path}`);
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
      const wrong = await fetch(`${basic.url}${path}`, {
        headers: { authorization: `Basic ${Buffer.from(`${USER}:nope`).toString('base64')}` },
      });
      expect(wrong.status).toBe(401);
    }
    const good = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;
    expect((await fetch(`${basic.url}/status`, { headers: { authorization: good } })).status).toBe(
      200,
    );
    // The verifier page holds no operational data and is open.
    expect((await fetch(`${basic.url}/console/verify`)).status).toBe(200);
    await steeringIsOpen(basic);

    const browser = await launch({ httpCredentials: { username: USER, password: PASSWORD } });
    try {
      const { page, errors } = await browser.page();
      await page.goto(`${basic.url}/console/`);
      await page.waitForSelector('body[data-ready="true"]');
      expect(await page.locator('[data-pathway]').count()).toBe(3);
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      await browser.close();
    }
  });

  it('turned off, /status and /console/ are not there; steering is', async () => {
    for (const path of ['/status', '/status/history', '/console/', '/console/verify']) {
      expect((await fetch(`${off.url}${path}`)).status).toBe(404);
    }
    expect(off.consoleUrl).toBeNull();
    expect(off.energyUrl).toBeNull();
    await steeringIsOpen(off);
  });
});
