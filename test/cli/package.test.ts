/**
 * CTX-5: the npm package `tessera-boards` installs a working `tessera` command. A full `npm install` of the packed
 * tarball takes 35 s or more and needs the registry for what the local cache lacks, so by default this test packs
 * the package and lays it out as an install would: the tarball's files, and a node_modules of only the production
 * dependencies of package-lock.json (no dev dependency can be reached from the package's own files). With
 * TEST_NPM_INSTALL=1 it also runs the real `npm install --prefer-offline <tarball>` into a temporary prefix.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const repoRoot = path.join(__dirname, '../..');
const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));
const slow = 180_000;

let tmp: string;
let tarball: string;
let packed: string[];
beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'tessera-pack-'));
  const [result] = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', tmp], { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
  tarball = path.join(tmp, result.filename);
  packed = result.files.map((file: { path: string }) => file.path);
}, slow);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Runs the installed bin with node, as the shim npm links into .bin does. */
const runBin = (bin: string, args: string[]) => spawnSync(process.execPath, [bin, ...args], { cwd: tmp, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: tmp } });

function expectWorkingCommand(bin: string): void {
  const version = runBin(bin, ['--version']);
  expect({ status: version.status, stderr: version.stderr }).toEqual({ status: 0, stderr: '' });
  expect(version.stdout.trim()).toBe(manifest.version);
  const help = runBin(bin, ['--help']);
  expect(help.status).toBe(0);
  for (const command of ['boards', 'plan', 'apply', 'login', 'context']) expect(help.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
  const planHelp = runBin(bin, ['plan', '--help']);
  expect(planHelp.status).toBe(0);
  expect(planHelp.stdout).toContain('--managed-by');
}

describe('the npm package (CTX-5)', () => {
  it('CTX-5: publishable: not private, named tessera-boards, the bin and the files it runs from are in the tarball, no tests', () => {
    expect(manifest.private).toBeUndefined();
    expect(manifest.name).toBe('tessera-boards');
    expect(manifest.bin).toEqual({ tessera: 'bin/tessera.js' });
    for (const file of ['package.json', 'bin/tessera.js', 'src/cli/main.ts', 'src/cli/remote/fleet.ts', 'generated/openapi.json', 'generated/client/index.js', 'generated/board-file.schema.json', 'scripts/build-server.js', 'scripts/start.js', 'scripts/db-template.ts']) {
      expect(packed).toContain(file);
    }
    expect(packed.filter((file) => /^(test|docs|openapi|node_modules|build)\//.test(file))).toEqual([]);
  });

  it(
    'CTX-5: the packed files with only the production dependencies run `tessera --version`, `--help`, `plan --help`',
    () => {
      const root = path.join(tmp, 'layout');
      const pkg = path.join(root, 'node_modules', manifest.name);
      mkdirSync(pkg, { recursive: true });
      execFileSync('tar', ['-xzf', tarball, '-C', pkg, '--strip-components=1']);
      // The production closure of the lock file: every top-level package not marked dev (nested ones come with
      // their parent's folder).
      const lock = JSON.parse(readFileSync(path.join(repoRoot, 'package-lock.json'), 'utf8'));
      const modules = path.join(pkg, 'node_modules');
      for (const [where, entry] of Object.entries<{ dev?: boolean; devOptional?: boolean }>(lock.packages)) {
        const name = /^node_modules\/((?:@[^/]+\/)?[^/]+)$/.exec(where)?.[1];
        if (!name || entry.dev || entry.devOptional) continue;
        mkdirSync(path.dirname(path.join(modules, name)), { recursive: true });
        symlinkSync(path.join(repoRoot, where), path.join(modules, name));
      }
      // Dev dependencies that no production dependency needs are out of reach (jest, typescript, …).
      const devOnly = Object.keys(manifest.devDependencies).filter((name) => lock.packages[`node_modules/${name}`]?.dev);
      expect(devOnly).toEqual(expect.arrayContaining(['jest', 'typescript', '@swc/core']));
      for (const dev of devOnly) expect(() => require.resolve(`${dev}/package.json`, { paths: [pkg] })).toThrow();
      expectWorkingCommand(path.join(pkg, 'bin/tessera.js'));
    },
    slow,
  );

  const withInstall = process.env.TEST_NPM_INSTALL === '1' ? it : it.skip;
  withInstall(
    'CTX-5: npm install <tarball> into a prefix gives a working tessera (TEST_NPM_INSTALL=1)',
    () => {
      const prefix = path.join(tmp, 'prefix');
      execFileSync('npm', ['install', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', tarball], { stdio: 'ignore' });
      expectWorkingCommand(path.join(prefix, 'node_modules', manifest.name, 'bin/tessera.js'));
    },
    slow,
  );
});
