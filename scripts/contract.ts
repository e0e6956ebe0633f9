/**
 * npm run contract [-- [--database-only] <jest args>]
 *
 * Runs the HTTP test suite (default: all of test/, the fuzzer included) with CONTRACT_PROXY=1: every test server sits
 * behind `prism proxy` on generated/openapi.json, and a file fails when Prism reports a response violation or a
 * request violation the server accepted (test/support/contract.ts). Then prints which operations and statuses the
 * proxied traffic covered, and fails when an operation of the document was never called (unless test paths were
 * named: a part of the suite need not call everything).
 *
 * `--database-only` leaves out the test files that reach no database (pure rules, converters, the document's own
 * checks: `databaseFreeTests`): they run the same on every engine and make no request through the proxy, so CI's
 * PostgreSQL run would only repeat what its PGlite run already did.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { listOperations } from '../test/fuzz/openapi';

const root = path.resolve(__dirname, '..');
const reportDir = path.join(root, '.tessera-test', 'contract');
rmSync(reportDir, { recursive: true, force: true });
mkdirSync(reportDir, { recursive: true });

const jestBin = path.join(root, 'node_modules/jest/bin/jest.js');
const args = process.argv.slice(2);
const databaseOnly = args.includes('--database-only');
const jestArgs = args.filter((arg) => arg !== '--database-only');
const skipped = databaseOnly ? databaseFreeTests(root, jestBin) : [];
if (skipped.length > 0) console.log(`contract run: ${skipped.length} test files reach no database and are left out: ${skipped.join(', ')}`);
const jest = spawnSync(process.execPath, [jestBin, ...jestArgs, ...skipped.flatMap((file) => ['--testPathIgnorePatterns', `/${file.replace(/[.*+?^$()|[\]\\]/g, '\\$&')}$`])], {
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
process.exit(jest.status !== 0 || (never.length > 0 && !namesTestPaths(jestArgs)) ? 1 : 0);

/**
 * The test files that reach no database, relative to the repository: jest's own dependency graph names the files that
 * import the database, the server, a test server or the CLI (which opens one), and a file that names `DATABASE_URL`
 * reaches one by a process of its own.
 */
function databaseFreeTests(repo: string, jestEntry: string): string[] {
  const list = (extra: string[]) => {
    const result = spawnSync(process.execPath, [jestEntry, '--listTests', ...extra], { cwd: repo, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`jest --listTests failed: ${result.stderr}`);
    return result.stdout.split('\n').filter(Boolean).map((file) => path.relative(repo, file));
  };
  const databaseEntries = [
    ...readdirSync(path.join(repo, 'src/db')).filter((f) => f.endsWith('.ts')).map((f) => `src/db/${f}`),
    'src/server.ts',
    'test/support/server.ts',
    'test/support/cli.ts',
  ];
  const reaching = new Set(list(['--findRelatedTests', ...databaseEntries]));
  return list([])
    .filter((file) => !reaching.has(file) && !/DATABASE_URL/.test(readFileSync(path.join(repo, file), 'utf8')))
    .sort();
}

/** Whether the jest arguments name test paths (positional patterns), so that only a part of the suite runs. */
function namesTestPaths(jestArguments: string[]): boolean {
  const takesValue = new Set(['--outputFile', '--testPathIgnorePatterns', '-t', '--testNamePattern', '--maxWorkers', '-w', '--seed', '--shard', '--reporters']);
  return jestArguments.some((arg, i) => !arg.startsWith('-') && !takesValue.has(jestArguments[i - 1]));
}
