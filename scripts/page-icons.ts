/**
 * npx tsx scripts/page-icons.ts: draws Tessera's own icon (src/pages/icons/tessera.svg) as the 192 and 512 px PNGs the
 * board's web app manifest names (PWA-1), in headless Chromium. Run after changing the SVG; the PNGs are committed.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { launchBrowser } from '../test/support/browser';

const dir = path.resolve(__dirname, '../src/pages/icons');

async function main(): Promise<void> {
  const svg = readFileSync(path.join(dir, 'tessera.svg'), 'utf8');
  const launched = await launchBrowser();
  try {
    for (const size of [192, 512]) {
      const page = await launched.context.newPage();
      await page.setViewportSize({ width: size, height: size });
      await page.setContent(`<!doctype html><style>html,body{margin:0;background:transparent}svg{display:block;width:${size}px;height:${size}px}</style>${svg}`);
      await page.screenshot({ path: path.join(dir, `tessera-${size}.png`), omitBackground: true });
      await page.close();
      console.log(`src/pages/icons/tessera-${size}.png`);
    }
  } finally {
    await launched.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
