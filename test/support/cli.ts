/** The `tessera` command as its own process, for tests of the CLI. */
import { spawn } from 'node:child_process';
import path from 'node:path';

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

const repoRoot = path.join(__dirname, '../..');

/** Runs `tessera <args>` (bin/tessera.js) in the repository with `env`, stdin not a terminal. */
export function runTessera(args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  const child = spawn(process.execPath, [path.join(repoRoot, 'bin/tessera.js'), ...args], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

export function expectStatus(result: CliResult, status: number): void {
  if (result.status !== status) throw new Error(`expected exit ${status}, got ${result.status}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
}
