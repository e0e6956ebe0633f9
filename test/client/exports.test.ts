/**
 * CLIENT-1: the typed client is importable by a user's project as `tessera-boards/client` (package.json `exports`: the
 * JavaScript `npm run generate` makes, generated/client/index.js, with the types of src/client/index.ts). A project
 * outside this repository with the package in its node_modules type-checks against it (a wrong path is a compile
 * error) and calls a server with it.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { useTestServer } from '../support/server';

const root = path.resolve(__dirname, '../..');
const run = promisify(execFile);
const server = useTestServer();

let project: string;
beforeAll(() => {
  project = mkdtempSync(path.join(os.tmpdir(), 'tessera-client-user-'));
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'user-project', private: true, type: 'commonjs' }));
  mkdirSync(path.join(project, 'node_modules'));
  // As `npm install <path of this repository>` links it.
  symlinkSync(root, path.join(project, 'node_modules', 'tessera-boards'), 'dir');
});
afterAll(() => rmSync(project, { recursive: true, force: true }));

describe('CLIENT-1: tessera-boards/client', () => {
  it('resolves by its own name inside this package (self-reference) to the generated client', async () => {
    const { stdout } = await run(process.execPath, ['-e', "process.stdout.write(require.resolve('tessera-boards/client'))"], { cwd: root });
    expect(stdout).toBe(path.join(root, 'generated/client/index.js'));
  });

  it("type-checks a user's .ts file against the client's types", async () => {
    writeFileSync(
      path.join(project, 'main.ts'),
      [
        "import { createTesseraClient, type TesseraClient } from 'tessera-boards/client';",
        "const tessera: TesseraClient = createTesseraClient({ baseUrl: 'http://localhost:7575', apiKey: process.env.TESSERA_API_KEY });",
        'export async function names(): Promise<string[]> {',
        "  const { data } = await tessera.GET('/api/boards');",
        '  return (data ?? []).map((board) => board.name);',
        '}',
        '// @ts-expect-error: not a path of the API',
        "void tessera.GET('/api/not-a-route');",
        '',
      ].join('\n'),
    );
    const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
    const args = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--types', 'node', '--typeRoots', path.join(root, 'node_modules/@types'), 'main.ts'];
    await expect(run(process.execPath, [tsc, ...args], { cwd: project })).resolves.toBeDefined();
  }, 120_000);

  it("runs in a user's plain JavaScript project against a server", async () => {
    const script = `const { createTesseraClient } = require('tessera-boards/client');
      createTesseraClient({ baseUrl: process.argv[1], apiKey: process.argv[2] }).GET('/api/auth/session')
        .then(({ data }) => process.stdout.write(data.username));`;
    const { stdout } = await run(process.execPath, ['-e', script, server.directUrl, server.adminKey], { cwd: project });
    expect(stdout).toBe('admin');
  });
});
