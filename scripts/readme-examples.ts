/**
 * The examples of the README and of the guides in docs/, run as written (DOCS-2, DOCS-4). Every `sh` and `ts` block
 * of README.md and docs/*.md is preceded by a marker: `<!-- readme-example: run -->`, or
 * `<!-- readme-example: skip (why) -->` for what cannot run here (a stream that never ends, a registry download, an
 * editor). An unmarked block is an error naming its file and line, so a new example is never left out silently.
 *
 * The blocks marked `run` run against a running instance with only what a reader would fill in themselves replaced:
 * the address `localhost:7575`, the key placeholders (`<id>.<token>`, the sample printed key) and `<board id>`.
 * The shell blocks of one file run one after the other in one bash session (as a reader types them into one
 * terminal), the files in a fixed order (README.md, then docs/*.md by name), with curl failing on HTTP errors
 * (`--fail-with-body`); the `npx tessera` admin commands use their own DATA_DIR. TypeScript blocks are type-checked
 * with tsc (strict, nodenext) and run with tsx, each as a plain `.ts` file in the repository (so `tessera-boards/client`
 * resolves as it does in a project that installed this package).
 *
 * The same files' relative links must resolve to a file and, with a `#fragment`, to a heading of it (DOCS-5,
 * `brokenLinks`).
 *
 * test/readme/readme.test.ts calls `runDocExamples` against a test server, and `brokenLinks`.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '..');

/** A documentation file: its path relative to the repository (`README.md`, `docs/gitops.md`) and its text. */
export interface DocFile {
  file: string;
  text: string;
}

/** README.md, then every docs/*.md by name: the files whose examples run and whose links are checked. */
export function docFiles(base = root): DocFile[] {
  const guides = readdirSync(path.join(base, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...guides].map((file) => ({ file, text: readFileSync(path.join(base, file), 'utf8') }));
}

export interface ReadmeExample {
  /** The file it is in, relative to the repository. */
  file: string;
  language: 'sh' | 'ts';
  /** Line of the opening fence (1-based). */
  line: number;
  code: string;
  run: boolean;
  /** Why a `skip` block does not run. */
  reason?: string;
}

/** The `sh` and `ts` blocks of a Markdown file with their markers; throws (naming `file` and the line) on a block without one. */
export function readmeExamples(text: string, file = 'README.md'): ReadmeExample[] {
  const lines = text.split('\n');
  const examples: ReadmeExample[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^(\s*)```(sh|ts)\s*$/.exec(lines[i]);
    if (!fence) {
      // Skip over other fenced blocks whole (their content may look like fences of their own).
      if (/^\s*```\S*\s*$/.test(lines[i])) i = closingFence(lines, i, file);
      continue;
    }
    const indent = fence[1];
    const end = closingFence(lines, i, file);
    const code = lines
      .slice(i + 1, end)
      .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line))
      .join('\n');
    const marker = /^\s*<!-- readme-example: (run|skip)(?: \((.+)\))? -->\s*$/.exec(lines[i - 1] ?? '');
    if (!marker) throw new Error(`${file}:${i + 1}: a ${fence[2]} block without a "<!-- readme-example: run -->" or "<!-- readme-example: skip (why) -->" line before it`);
    if (marker[1] === 'skip' && !marker[2]) throw new Error(`${file}:${i}: a skipped example must say why`);
    examples.push({ file, language: fence[2] as 'sh' | 'ts', line: i + 1, code, run: marker[1] === 'run', reason: marker[2] });
    i = end;
  }
  return examples;
}

function closingFence(lines: string[], opening: number, file: string): number {
  for (let j = opening + 1; j < lines.length; j++) if (/^\s*```\s*$/.test(lines[j])) return j;
  throw new Error(`${file}:${opening + 1}: unclosed code block`);
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

/** Runs the `run` examples of `files` against `target`: one result per file's shell session and per TypeScript block. */
export async function runDocExamples(target: ExampleTarget, files: DocFile[] = docFiles()): Promise<ExampleRun[]> {
  const examples = files.flatMap((doc) => readmeExamples(doc.text, doc.file)).filter((example) => example.run);
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

  for (const doc of files) {
    const shell = examples.filter((example) => example.language === 'sh' && example.file === doc.file);
    if (shell.length === 0) continue;
    // Each file's session starts in a directory of its own, as a reader following that guide would.
    const sessionDir = path.join(workDir, doc.file.replace(/[^A-Za-z0-9.-]/g, '_'));
    mkdirSync(sessionDir);
    const script = [
      'set -euo pipefail',
      'curl() { command curl --fail-with-body --silent --show-error "$@"; echo; }',
      ...shell.map((example) => `echo "### ${example.file}:${example.line}"\n${fillIn(example.code, target)}`),
    ].join('\n');
    runs.push({ example: shell[0], ...(await run('bash', ['-c', script], { cwd: sessionDir, env, timeoutMs: 300_000 })) });
  }

  const typescript = examples.filter((example) => example.language === 'ts');
  const tsFiles = typescript.map((example) => {
    const file = path.join(workDir, `${example.file.replace(/[^A-Za-z0-9]/g, '-')}-${example.line}.ts`);
    writeFileSync(file, fillIn(example.code, target) + '\n');
    return file;
  });
  if (tsFiles.length > 0) {
    const tscArgs = ['--noEmit', '--strict', '--skipLibCheck', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--types', 'node', ...tsFiles];
    const tsc = await run(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), ...tscArgs], { cwd: root, timeoutMs: 120_000 });
    if (tsc.status !== 0) runs.push({ example: typescript[0], status: tsc.status, output: `tsc: ${tsc.output}` });
  }
  for (const [index, example] of typescript.entries()) {
    runs.push({ example, ...(await run(process.execPath, ['--require', 'tsx/cjs', tsFiles[index]], { cwd: root, env, timeoutMs: 60_000 })) });
  }
  rmSync(workDir, { recursive: true, force: true });
  return runs;
}

/** GitHub's anchor for a heading: lower case, punctuation but `-` and `_` dropped, each space a `-`. */
export function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*]/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a Markdown text's headings (outside code blocks), numbered as GitHub numbers repeats (`x`, `x-1`). */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutCode(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const anchor = headingAnchor(heading[1]);
    const count = seen.get(anchor) ?? 0;
    anchors.add(count === 0 ? anchor : `${anchor}-${count}`);
    seen.set(anchor, count + 1);
  }
  return anchors;
}

/** The lines of a Markdown text with fenced blocks blanked (kept as empty lines, so line numbers hold). */
function withoutCode(text: string): string[] {
  const lines = text.split('\n');
  let fence: string | undefined;
  return lines.map((line) => {
    const marker = /^\s*(```|~~~)/.exec(line);
    if (fence) {
      if (marker && marker[1] === fence) fence = undefined;
      return '';
    }
    if (marker) {
      fence = marker[1];
      return '';
    }
    return line;
  });
}

export interface BrokenLink {
  file: string;
  line: number;
  target: string;
  reason: string;
}

/**
 * Relative links of the documentation files (`[text](target)`, outside code) that do not resolve: to a missing file,
 * or to a heading anchor the target Markdown file does not have (DOCS-5). Links with a scheme (`https:`, `mailto:`)
 * are not followed.
 */
export function brokenLinks(files: DocFile[] = docFiles(), base = root): BrokenLink[] {
  const broken: BrokenLink[] = [];
  const anchorsOf = new Map<string, Set<string>>();
  const anchors = (file: string): Set<string> => {
    if (!anchorsOf.has(file)) anchorsOf.set(file, headingAnchors(files.find((doc) => doc.file === file)?.text ?? readFileSync(path.join(base, file), 'utf8')));
    return anchorsOf.get(file)!;
  };
  for (const doc of files) {
    for (const [index, line] of withoutCode(doc.text).entries()) {
      // Inline code spans are not links.
      const text = line.replace(/`[^`]*`/g, (span) => ' '.repeat(span.length));
      for (const match of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        const target = match[1];
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
        const [pathPart, fragment] = target.split('#', 2) as [string, string | undefined];
        const resolved = pathPart === '' ? doc.file : path.posix.normalize(path.posix.join(path.posix.dirname(doc.file), decodeURIComponent(pathPart)));
        const report = (reason: string) => broken.push({ file: doc.file, line: index + 1, target, reason });
        const given = files.some((each) => each.file === resolved);
        if (resolved.startsWith('../') || (!given && !existsSync(path.join(base, resolved)))) {
          report(`no file ${resolved}`);
          continue;
        }
        if (fragment === undefined || fragment === '') continue;
        if (!resolved.endsWith('.md') || (!given && statSync(path.join(base, resolved)).isDirectory())) {
          report(`${resolved} has no headings to link to`);
          continue;
        }
        if (!anchors(resolved).has(fragment)) report(`${resolved} has no heading #${fragment}`);
      }
    }
  }
  return broken;
}
