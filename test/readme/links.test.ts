/**
 * DOCS-5: every relative link of README.md and docs/*.md points to an existing file and, with a `#fragment`, to a
 * heading of that file (scripts/readme-examples.ts `brokenLinks`).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { brokenLinks, docFiles, headingAnchor, headingAnchors } from '../../scripts/readme-examples';

describe('DOCS-5: links between the README and the guides', () => {
  it('every relative link of the README and the guides resolves', () => {
    expect(brokenLinks(docFiles())).toEqual([]);
  });

  it('the README links every guide in docs/', () => {
    const [readme, ...guides] = docFiles();
    for (const guide of guides) expect(readme.text).toContain(`](${guide.file})`);
  });

  it('names anchors as GitHub does', () => {
    expect(headingAnchor('Plan, history and restore')).toBe('plan-history-and-restore');
    expect(headingAnchor('Coming from homepage / Dashy / Glance / Homarr')).toBe('coming-from-homepage--dashy--glance--homarr');
    expect(headingAnchor('tRPC and MCP')).toBe('trpc-and-mcp');
    expect(headingAnchor('`npm run mock` and DOCS-2')).toBe('npm-run-mock-and-docs-2');
    expect([...headingAnchors('# A\n## B\n```sh\n# not a heading\n```\n## B\n')]).toEqual(['a', 'b', 'b-1']);
  });

  it('reports a missing file, a missing heading and a link out of the repository, with file and line; follows no URL and no code', () => {
    const files = [
      { file: 'README.md', text: '# T\n\n[ok](docs/a.md#section-one) [self](#t) [web](https://example.com/x.md)\n' },
      {
        file: 'docs/a.md',
        text: '# A\n\n## Section one\n\n[up](../README.md#t)\n[gone](missing.md)\n[typo](#section-two)\n[out](../../etc/passwd)\n`[code](nowhere.md)`\n```md\n[block](nowhere.md)\n```\n',
      },
    ];
    const broken = brokenLinks(files, '/nonexistent-root').map(({ file, line, target, reason }) => `${file}:${line} ${target}: ${reason}`);
    expect(broken).toEqual([
      'docs/a.md:6 missing.md: no file docs/missing.md',
      'docs/a.md:7 #section-two: docs/a.md has no heading #section-two',
      'docs/a.md:8 ../../etc/passwd: no file ../etc/passwd',
    ]);
  });
});

describe('DOCS-6: the README configuration table', () => {
  it('names every variable src/config/config.ts reads, and no other', () => {
    const source = readFileSync(path.join(__dirname, '../../src/config/config.ts'), 'utf8');
    const read = new Set([...source.matchAll(/env\.([A-Z][A-Z0-9_]+)|\(env, '([A-Z][A-Z0-9_]+)'/g)].map((m) => m[1] ?? m[2]));
    const readme = readFileSync(path.join(__dirname, '../../README.md'), 'utf8');
    const table = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('\n## ', readme.indexOf('## Configuration') + 1));
    const listed = new Set([...table.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \|/gm)].map((m) => m[1]));
    expect(read.size).toBeGreaterThan(30);
    expect([...read].filter((name) => !listed.has(name)).sort()).toEqual([]);
    expect([...listed].filter((name) => !read.has(name)).sort()).toEqual([]);
  });
});
