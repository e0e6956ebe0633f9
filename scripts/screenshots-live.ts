/**
 * npm run screenshots:live: a board of live tiles (downloads, system health, calendar, a feed, containers, a custom
 * API, weather) at desktop (1440 px) and phone (390 px) widths, light and dark, written to docs/images/ (the README
 * and docs/live-data.md show them). A script, not a test: it starts the real services the live tests start
 * (qBittorrent, Glances, Radicale, Podman; test/support/liveBoard.ts), the service on an in-memory embedded database,
 * and photographs the page as an anonymous visitor (the board is public) in headless Chromium.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { loadConfig } from '../src/config/config';
import { createDatabase } from '../src/db/database';
import { startServer } from '../src/server';
import { launchBrowser } from '../test/support/browser';
import { seedLiveBoard, startLiveServices } from '../test/support/liveBoard';

const out = path.resolve(__dirname, '../docs/images');
const adminKey = 'shotslive001.' + 'b'.repeat(48);

async function main(): Promise<void> {
  const services = await startLiveServices('reverse-proxy');
  const env = { LOG_LEVEL: 'silent', SECRET_ENCRYPTION_KEY: 'c'.repeat(64), ...services.env };
  const config = { ...loadConfig(env), port: 0, host: '127.0.0.1', bootstrapAdminApiKey: adminKey, bootstrapAdminPassword: 'screenshots-pass' };
  const server = await startServer(config, { db: createDatabase({ databaseUrl: null, pgliteDir: null }), logger: pino({ level: 'silent' }) });
  const launched = await launchBrowser();
  try {
    const call = async (method: string, p: string, body?: unknown) => {
      const response = await fetch(server.url + p, { method, headers: { ApiKey: adminKey, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await response.text();
      if (response.status >= 300) throw new Error(`${method} ${p}: ${response.status} ${text}`);
      return text ? JSON.parse(text) : undefined;
    };
    const { ids } = await seedLiveBoard(call, services, 'home-live');
    mkdirSync(out, { recursive: true });
    for (const [width, height, file, scheme] of [
      [1440, 900, 'live-desktop.png', 'light'],
      [1440, 900, 'live-desktop-dark.png', 'dark'],
      [390, 844, 'live-phone.png', 'light'],
      [390, 844, 'live-phone-dark.png', 'dark'],
    ] as const) {
      const page = await launched.context.newPage();
      await page.emulateMedia({ colorScheme: scheme });
      await page.setViewportSize({ width, height });
      await page.goto(`${server.url}/boards/home-live`);
      // every tile has drawn its first answer (no "Loading…" left)
      for (const id of Object.values(ids)) await page.waitForSelector(`.tile[data-item-id="${id}"] .live[aria-busy="false"]`, { timeout: 60_000 });
      await page.screenshot({ path: path.join(out, file), fullPage: width < 500 });
      await page.close();
      console.log(`docs/images/${file}`);
    }
  } finally {
    await launched.close();
    await server.stop();
    await services.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
