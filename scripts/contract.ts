/**
 * npm run contract [-- <jest args>]
 *
 * Runs the HTTP test suite (default: all of test/, the fuzzer included) with CONTRACT_PROXY=1: every test server sits
 * behind `prism proxy` on generated/openapi.json, and a file fails when Prism reports a response violation or a
 * request violation the server accepted (test/support/contract.ts). Then prints which operations and statuses the
 * proxied traffic covered, and fails when an operation of the document was never called.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { listOperations } from '../test/fuzz/openapi';

const root = path.resolve(__dirname, '..');
const reportDir = path.join(root, '.tessera-test', 'contract');
rmSync(reportDir, { recursive: true, force: true });
mkdirSync(reportDir, { recursive: true });

const jestArgs = process.argv.slice(2);
const jest = spawnSync(process.execPath, [path.join(root, 'node_modules/jest/bin/jest.js'), ...jestArgs], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, CONTRACT_PROXY: '1', CONTRACT_REPORT_DIR: reportDir },
});

const document = JSON.parse(readFileSync(path.join(root, 'generated/openapi.json'), 'utf8'));
const operations = listOperations(document).map((op) => ({
  ...op,
  pattern: new RegExp(`^${op.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}/?$`),
  seen: new Map<number, number>(),
}));
let exchanges = 0;
for (const file of readdirSync(reportDir).filter((f) => f.endsWith('.jsonl'))) {
  for (const line of readFileSync(path.join(reportDir, file), 'utf8').split('\n')) {
    if (!line) continue;
    const { method, path: requestPath, status } = JSON.parse(line) as { method: string; path: string; status: number };
    exchanges += 1;
    // The most specific template wins (fewest parameters).
    const candidates = operations
      .filter((op) => op.method.toUpperCase() === method && op.pattern.test(requestPath))
      .sort((a, b) => (a.path.match(/\{/g)?.length ?? 0) - (b.path.match(/\{/g)?.length ?? 0));
    const op = candidates[0];
    if (op) op.seen.set(status, (op.seen.get(status) ?? 0) + 1);
  }
}

const never = operations.filter((op) => op.seen.size === 0);
console.log(`\ncontract coverage: ${exchanges} proxied exchanges, ${operations.length - never.length} of ${operations.length} operations called`);
for (const op of operations) {
  const declared = Object.keys(op.responses);
  const seen = [...op.seen.keys()].sort();
  const unseen = declared.filter((s) => !seen.some((n) => String(n) === s));
  console.log(
    `  ${op.method.toUpperCase().padEnd(6)} ${op.path.padEnd(44)} seen ${seen.join(',') || '-'}` +
      (unseen.length ? `   not exercised: ${unseen.join(',')}` : ''),
  );
}
if (never.length > 0) console.error(`operations never called through the proxy: ${never.map((op) => op.operationId).join(', ')}`);
if (jest.status !== 0) console.error('the test suite failed under the contract proxy (see above)');
process.exit(jest.status !== 0 || (never.length > 0 && jestArgs.length === 0) ? 1 : 0);
