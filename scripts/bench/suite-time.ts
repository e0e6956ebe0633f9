/**
 * npx tsx scripts/bench/suite-time.ts [jest arguments…]      (also `npm run bench -- --ops suite [--suite-args "…"]`)
 *
 * The wall time of the test suite: runs `npx jest` (with the arguments given, and with --json into a temporary file
 * for the counts), on PGlite, or on PostgreSQL when TEST_DATABASE_URL is set (the environment is passed on as it
 * is), and prints `suite wall time: X min (N tests passed, M failed)`. Jest's own output goes to the terminal as
 * usual. It takes minutes and loads every core: not part of `npm run bench`'s default operations.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { root } from './processes';

export interface SuiteResult {
  wallMs: number;
  exitCode: number | null;
  passed: number;
  failed: number;
  pending: number;
  suites: number;
  /** Suites that failed, including those that could not run at all (`didNotRun`, whose tests are not counted). */
  failedSuites: number;
  didNotRun: number;
  database: string;
}

export async function timeSuite(jestArgs: string[]): Promise<SuiteResult> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tessera-suite-'));
  const outputFile = path.join(dir, 'jest.json');
  try {
    const started = performance.now();
    const exitCode = await new Promise<number | null>((resolve, reject) => {
      const child = spawn('npx', ['jest', '--json', `--outputFile=${outputFile}`, ...jestArgs], { cwd: root, env: process.env, stdio: ['ignore', 'inherit', 'inherit'] });
      child.once('error', reject);
      child.once('exit', (code) => resolve(code));
    });
    const wallMs = performance.now() - started;
    let report: any;
    try {
      report = JSON.parse(readFileSync(outputFile, 'utf8'));
    } catch {
      throw new Error(`jest exited with ${exitCode} and wrote no --json report (after ${(wallMs / 60_000).toFixed(1)} min)`);
    }
    return {
      wallMs,
      exitCode,
      passed: report.numPassedTests,
      failed: report.numFailedTests,
      pending: report.numPendingTests + (report.numTodoTests ?? 0),
      suites: report.numTotalTestSuites,
      failedSuites: report.numFailedTestSuites,
      didNotRun: report.numRuntimeErrorTestSuites ?? 0,
      database: process.env.TEST_DATABASE_URL ? 'PostgreSQL (TEST_DATABASE_URL)' : 'PGlite',
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function formatSuite(result: SuiteResult): string {
  return [
    `suite wall time: ${(result.wallMs / 60_000).toFixed(1)} min (${result.passed} tests passed, ${result.failed} failed)`,
    `  ${result.database}; ${result.suites} suites, ${result.failedSuites} failed (${result.didNotRun} of them did not run); ${result.pending} tests skipped; jest exit code ${result.exitCode}; ${os.cpus().length} cores, node ${process.version}`,
  ].join('\n');
}

if (require.main === module) {
  timeSuite(process.argv.slice(2))
    .then((result) => {
      console.log(`\n${formatSuite(result)}`);
      process.exitCode = result.exitCode ?? 1;
    })
    .catch((error) => {
      console.error(error);
      process.exit(1);
    });
}
