/**
 * Headless Debian chromium for the browser tests (playwright-core, no browser download). A missing browser fails the
 * test with the one command that installs it, never skips it.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, BrowserContext, type Page } from 'playwright-core';

export const chromiumPath = () => process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const missingBrowserMessage = (executablePath: string) =>
  `${executablePath} is missing: the browser tests need headless Chromium. Install it with: sudo apt-get install -y chromium (or, as root: npm run setup:browser)`;

export interface TestBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** A fresh profile (launchPersistentContext passes it as --user-data-dir) in a headless browser that stays offline. */
export async function launchBrowser(executablePath = chromiumPath()): Promise<TestBrowser> {
  if (!existsSync(executablePath)) throw new Error(missingBrowserMessage(executablePath));
  const profile = mkdtempSync(path.join(tmpdir(), 'tessera-chromium-'));
  try {
    const context = await chromium.launchPersistentContext(profile, {
      executablePath,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    return {
      context,
      close: async () => {
        await context.close();
        rmSync(profile, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
}

/**
 * The hooks of a browser test file: after each test its pages are closed (a page left open holds a change-feed
 * connection), whatever the outcome; after the file, the browser and then the server are stopped.
 */
export function closeAfterTests(get: () => { launched?: TestBrowser; server?: { stop(): Promise<void> } }): void {
  afterEach(async () => {
    for (const page of get().launched?.context.pages() ?? []) await page.close();
  });
  afterAll(async () => {
    await get().launched?.close();
    await get().server?.stop();
  });
}

/**
 * A new page, signed out, that may only talk to the instance at `instanceUrl` (and `data:`): every other request is
 * refused and noted in `offsite`; the page's uncaught errors are noted in `errors`.
 */
export async function instanceOnlyPage(context: BrowserContext, instanceUrl: string, width: number): Promise<{ page: Page; offsite: string[]; errors: string[] }> {
  await context.clearCookies();
  const page = await context.newPage();
  await page.setViewportSize({ width, height: 900 });
  const origin = new URL(instanceUrl).origin;
  const offsite: string[] = [];
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(origin) || url.startsWith('data:')) return route.continue();
    offsite.push(url);
    return route.abort();
  });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  return { page, offsite, errors };
}
