/**
 * jest's globalSetup: in the contract run (CONTRACT_PROXY=1) starts the Prism pool of hub.js once for the whole run and
 * tells the workers where it is (CONTRACT_HUB_URL); test/support/contract.ts attaches each test server to it.
 * Nothing happens in other runs, or with CONTRACT_HUB=off (one Prism per test server, as before the pool: to compare).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';

declare global {
  // eslint-disable-next-line no-var
  var contractHub: ChildProcess | undefined;
}

export default async function globalSetup(): Promise<void> {
  if (process.env.CONTRACT_PROXY !== '1' || process.env.CONTRACT_HUB_URL || process.env.CONTRACT_HUB === 'off') return;
  const hub = spawn(process.execPath, [path.join(__dirname, 'hub.js')], { stdio: ['pipe', 'pipe', 'inherit'] });
  process.env.CONTRACT_HUB_URL = await new Promise<string>((resolve, reject) => {
    createInterface({ input: hub.stdout! }).once('line', (line) => resolve(line.trim()));
    hub.once('exit', (code) => reject(new Error(`the contract hub exited (${code}) before listening`)));
  });
  globalThis.contractHub = hub;
}
