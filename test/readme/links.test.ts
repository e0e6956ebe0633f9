/**
 * DOCS-5: every relative link of README.md and docs/*.md points to an existing file and, with a `#fragment`, to a
 * heading of that file (scripts/readme-examples.ts `brokenLinks`).
 */
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
