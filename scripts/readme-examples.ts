/**
 * The README's examples, run as written (DOCS-2). Every `sh` and `ts` block of README.md is preceded by a marker:
 * `<!-- readme-example: run -->`, or `<!-- readme-example: skip (why) -->` for what cannot run here (a stream that
 * never ends, a registry download, an editor). An unmarked block is an error, so a new example is never left out
 * silently.
 *
 * The blocks marked `run` run against a running instance with only what a reader would fill in themselves replaced:
 * the address `localhost:7575`, the key placeholders (`<id>.<token>`, the sample printed key) and `<board id>`.
 * Shell blocks run one after the other in one bash session (as a reader types them into one terminal), with curl
 * failing on HTTP errors (`--fail-with-body`); the `npx tessera` admin commands use their own DATA_DIR. TypeScript
 * blocks are type-checked with tsc (strict, nodenext) and run with tsx, each as a plain `.ts` file in the repository
 * (so `tessera-boards/client` resolves as it does in a project that installed this package).
 *
 * test/readme/readme.test.ts calls `runReadmeExamples` against a test server.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '..');

export interface ReadmeExample {
  language: 'sh' | 'ts';
  /** Line of the opening fence (1-based). */
  line: number;
  code: string;
  run: boolean;
  /** Why a `skip` block does not run. */
  reason?: string;
}

/** The `sh` and `ts` blocks of a README with their markers; throws on a block without one. */
export function readmeExamples(text: string): ReadmeExample[] {
  const lines = text.split('\n');
  const examples: ReadmeExample[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^(\s*)```(sh|ts)\s*$/.exec(lines[i]);
    if (!fence) {
      // Skip over other fenced blocks whole (their content may look like fences of their own).
      if (/^\s*```\S*\s*$/.test(lines[i])) i = closingFence(lines, i);
      continue;
    }
    const indent = fence[1];
    const end = closingFence(lines, i);
    const code = lines
      .slice(i + 1, end)
      .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line))
      .join('\n');
    const marker = /^\s*<!-- readme-example: (run|skip)(?: \((.+)\))? -->\s*$/.exec(lines[i - 1] ?? '');
    if (!marker) throw new Error(`README.md:${i + 1}: a ${fence[2]} block without a "<!-- readme-example: run -->" or "<!-- readme-example: skip (why) -->" line before it`);
    if (marker[1] === 'skip' && !marker[2]) throw new Error(`README.md:${i}: a skipped example must say why`);
    examples.push({ language: fence[2] as 'sh' | 'ts', line: i + 1, code, run: marker[1] === 'run', reason: marker[2] });
    i = end;
  }
  return examples;
}

function closingFence(lines: string[], opening: number): number {
  for (let j = opening + 1; j < lines.length; j++) if (/^\s*```\s*$/.test(lines[j])) return j;
  throw new Error(`README.md:${opening + 1}: unclosed code block`);
}

export interface ExampleTarget {
  /** The instance, e.g. http://127.0.0.1:43121 */
  baseUrl: string;
  /** An admin API key of that instance. */
  apiKey: string;
  /** A board of that instance, for `<board id>`. */
  boardId: string;
}

/** What a reader fills in: the address, the key and the board id. */
export function fillIn(code: string, target: ExampleTarget): string {
  const host = new URL(target.baseUrl).host;
  return code
    .replace(/http:\/\/localhost:7575/g, `http://${host}`)
    .replace(/localhost:7575/g, host)
    .replace(/<id>\.<token>|3f9a2c1b0d4e\.6d1e0c5f\.\.\./g, target.apiKey)
    .replace(/<board id>/g, target.boardId);
}

export interface ExampleRun {
  example: ReadmeExample;
  status: number | null;
  output: string;
}

/** Runs a command to its end (without blocking: the instance may live in this very process). */
function run(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs: number }): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, output });
    });
  });
}

/** Runs the README's `run` examples against `target`; one result per shell session and per TypeScript block. */
export async function runReadmeExamples(target: ExampleTarget, readme = readFileSync(path.join(root, 'README.md'), 'utf8')): Promise<ExampleRun[]> {
  const examples = readmeExamples(readme).filter((example) => example.run);
  // Inside the repository (git-ignored), so that `npx tessera` and `tessera-boards/client` resolve to this package.
  mkdirSync(path.join(root, '.tessera-test'), { recursive: true });
  const workDir = mkdtempSync(path.join(root, '.tessera-test', 'readme-'));
  const env = {
    ...process.env,
    TESSERA_API_KEY: target.apiKey,
    DATA_DIR: path.join(workDir, 'data'),
    BOOTSTRAP_ADMIN_API_KEY: '',
    // npx finds this package's own `tessera` command and never asks the registry.
    npm_config_yes: 'false',
    LOG_LEVEL: 'warn',
  };
  const runs: ExampleRun[] = [];

  const shell = examples.filter((example) => example.language === 'sh');
  if (shell.length > 0) {
    const script = [
      'set -euo pipefail',
      'curl() { command curl --fail-with-body --silent --show-error "$@"; echo; }',
      ...shell.map((example) => `echo "### README.md:${example.line}"\n${fillIn(example.code, target)}`),
    ].join('\n');
    runs.push({ example: shell[0], ...(await run('bash', ['-c', script], { cwd: workDir, env, timeoutMs: 300_000 })) });
  }

  const typescript = examples.filter((example) => example.language === 'ts');
  const files = typescript.map((example) => {
    const file = path.join(workDir, `readme-${example.line}.ts`);
    writeFileSync(file, fillIn(example.code, target) + '\n');
    return file;
  });
  if (files.length > 0) {
    const tscArgs = ['--noEmit', '--strict', '--skipLibCheck', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--types', 'node', ...files];
    const tsc = await run(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), ...tscArgs], { cwd: root, timeoutMs: 120_000 });
    if (tsc.status !== 0) runs.push({ example: typescript[0], status: tsc.status, output: `tsc: ${tsc.output}` });
  }
  for (const [index, example] of typescript.entries()) {
    runs.push({ example, ...(await run(process.execPath, ['--require', 'tsx/cjs', files[index]], { cwd: root, env, timeoutMs: 60_000 })) });
  }
  rmSync(workDir, { recursive: true, force: true });
  return runs;
}
