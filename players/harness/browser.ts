// Debian's Chromium driven by playwright-core, with the flags this machine needs and a fresh
// profile in a temporary folder, removed on close.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type BrowserContext,
  chromium,
  type Page,
  type Browser as PwBrowser,
} from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  // Muted autoplay is allowed anyway; this keeps a policy change from stalling the suite.
  '--autoplay-policy=no-user-gesture-required',
];

export interface Browser {
  readonly context: BrowserContext;
  readonly page: Page;
  close(): Promise<void>;
}

export async function launch(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'wai-players-chromium-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      // No timeout of its own: Chromium starting on a busy machine takes its time, and the
      // test's own timeout bounds it.
      timeout: 0,
    });
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    async close() {
      await context.close().catch(() => undefined);
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Flags for several players playing at once, each in its own page: no page is throttled as a
 * background one (headless pages are not focused).
 */
export const PARALLEL_ARGS = [
  '--disable-background-timer-throttling',
  '--disable-renderer-backgrounding',
  '--disable-backgrounding-occluded-windows',
];

export interface ManyPages {
  readonly browser: PwBrowser;
  /** A page in a context of its own (fresh storage, no shared cache). */
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

/** One Chromium for many pages at once (the behaviour matrix). */
export async function launchMany(): Promise<ManyPages> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [...CHROMIUM_ARGS, ...PARALLEL_ARGS],
    timeout: 0,
  });
  return {
    browser,
    async newPage() {
      const context = await browser.newContext();
      const page = await context.newPage();
      page.on('close', () => void context.close().catch(() => undefined));
      return page;
    },
    close: () => browser.close().catch(() => undefined),
  };
}
