/**
 * `npm install && npm test` on a fresh machine (SETUP-1): the browser tests' Chromium is installed by `npm test` where
 * it can be (root), and a missing one fails with the command that installs it. No server.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { launchBrowser } from '../support/browser';

const root = path.resolve(__dirname, '../..');
const instruction = 'Install it with: sudo apt-get install -y chromium (or, as root: npm run setup:browser)';
const missing = path.join(root, 'no-such-dir', 'chromium');

function ensureChromium(args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('sh', [path.join(root, 'scripts/ensure-chromium.sh'), ...args], { env: { ...process.env, CHROMIUM_PATH: missing } }, (error, stdout, stderr) =>
      resolve({ status: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

it('SETUP-1: a missing browser fails the browser tests with the command that installs it', async () => {
  await expect(launchBrowser(missing)).rejects.toThrow(`${missing} is missing: the browser tests need headless Chromium. ${instruction}`);
});

it('SETUP-1: npm test runs the browser set-up first; without a way to install it says what to run and lets the suite go on', async () => {
  const scripts = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).scripts;
  // The live-data services (scripts/ensure-services.sh) are tried the same way, after the browser.
  expect(scripts.pretest).toBe('sh scripts/ensure-chromium.sh --optional && sh scripts/ensure-services.sh --optional');
  expect(scripts['setup:browser']).toBe('sh scripts/ensure-chromium.sh');

  const optional = await ensureChromium(['--optional']);
  expect(optional.status).toBe(0);
  expect(optional.stderr).toBe(`ensure-chromium: ${missing} is missing: the browser tests need headless Chromium. ${instruction}\n`);
  const required = await ensureChromium([]);
  expect(required.status).toBe(1);
  expect(required.stderr).toBe(optional.stderr);
});

it('SETUP-1: the README\'s test command names the command that installs the browser, in the same line', () => {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  expect(readme).toMatch(/^npm install && npm test .*sudo apt-get install -y chromium/m);
});
