/** The `tessera` command as its own process, for tests of the CLI. */
import { spawn } from 'node:child_process';
import path from 'node:path';

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

const repoRoot = path.join(__dirname, '../..');

/** Runs `tessera <args>` (bin/tessera.js) in `cwd` (the repository by default) with `env`, stdin not a terminal (`input` when given). */
export function runTessera(args: string[], env: NodeJS.ProcessEnv, options: { input?: string; cwd?: string } = {}): Promise<CliResult> {
  const stdin = options.input === undefined ? 'ignore' : 'pipe';
  const child = spawn(process.execPath, [path.join(repoRoot, 'bin/tessera.js'), ...args], { cwd: options.cwd ?? repoRoot, env, stdio: [stdin, 'pipe', 'pipe'] });
  if (options.input !== undefined) child.stdin!.end(options.input);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

export function expectStatus(result: CliResult, status: number): void {
  if (result.status !== status) throw new Error(`expected exit ${status}, got ${result.status}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
}
