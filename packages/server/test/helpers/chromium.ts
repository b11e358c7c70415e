// Debian's Chromium driven by playwright-core (as the players suite does), with a fresh profile
// in a temporary folder removed on close, and every console error and page error of its pages
// collected, so that a test can require none.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** Whether the browser tests can run here (CI installs Chromium: players/setup.sh). */
export const HAVE_CHROMIUM = existsSync(CHROMIUM);

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

export interface Browser {
  readonly context: BrowserContext;
  /** A new page whose console errors and page errors are collected in `errors`. */
  page(): Promise<{ page: Page; errors: string[] }>;
  close(): Promise<void>;
}

export async function launch(
  options: { httpCredentials?: { username: string; password: string } } = {},
): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'wai-console-chromium-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ARGS,
      timeout: 60_000,
      viewport: { width: 1400, height: 900 },
      ...(options.httpCredentials === undefined
        ? {}
        : { httpCredentials: options.httpCredentials }),
    });
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
  for (const p of context.pages()) await p.close();
  return {
    context,
    async page() {
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(`console: ${m.text()}`);
      });
      page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
      return { page, errors };
    },
    async close() {
      await context.close().catch(() => undefined);
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
