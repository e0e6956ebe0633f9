/**
 * Headless Debian chromium for the browser tests (playwright-core, no browser download). A missing browser fails the
 * test with the one command that installs it, never skips it.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, BrowserContext } from 'playwright-core';

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
