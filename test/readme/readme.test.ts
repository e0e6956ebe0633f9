/**
 * DOCS-2, DOCS-4: the shell and TypeScript examples of the README and of the guides in docs/ run as written against a
 * test server (scripts/readme-examples.ts): the admin CLI commands, the curl sessions on a board, the tRPC client and
 * the typed client in a plain `.ts` file. DOCS-5: their relative links resolve.
 */
import { docFiles, readmeExamples, runDocExamples } from '../../scripts/readme-examples';
import { useTestServer } from '../support/server';
import { createBoard } from '../boards-document/helpers';

const docs = docFiles();
const examples = docs.flatMap((doc) => readmeExamples(doc.text, doc.file));
const server = useTestServer();

describe('DOCS-2, DOCS-4: README and guide examples', () => {
  it('reads README.md and every guide in docs/, in a fixed order', () => {
    const names = docs.map((doc) => doc.file);
    expect(names[0]).toBe('README.md');
    expect(names.slice(1)).toEqual([...names.slice(1)].sort());
    expect(names).toEqual(expect.arrayContaining(['docs/using-the-api.md', 'docs/gitops.md', 'docs/operating.md', 'docs/rules.md']));
  });

  it('every sh and ts block says whether it runs, and most run', () => {
    expect(examples.filter((example) => example.run).length).toBeGreaterThanOrEqual(6);
    for (const example of examples.filter((each) => !each.run)) expect(example.reason).toBeTruthy();
    expect(() => readmeExamples('text\n```sh\necho unmarked\n```\n')).toThrow(/^README\.md:2: a sh block without a "<!-- readme-example: run -->"/);
  });

  it('an unmarked, unclosed or unexplained block is reported with its own file and line', () => {
    expect(() => readmeExamples('# Guide\n\ntext\n```ts\nconst x = 1;\n```\n', 'docs/guide.md')).toThrow(/^docs\/guide\.md:4: a ts block without a "<!-- readme-example: run -->"/);
    expect(() => readmeExamples('# Guide\n<!-- readme-example: run -->\n```sh\necho open\n', 'docs/guide.md')).toThrow(/^docs\/guide\.md:3: unclosed code block$/);
    expect(() => readmeExamples('# Guide\n<!-- readme-example: skip -->\n```sh\necho why\n```\n', 'docs/guide.md')).toThrow(/^docs\/guide\.md:2: a skipped example must say why$/);
  });

  it('the CLI example creates the group it then configures', () => {
    const cli = examples.find((example) => example.code.includes('groups set-permissions editors'))!;
    const lines = cli.code.split('\n');
    expect(lines.findIndex((line) => line.startsWith('npx tessera groups create editors'))).toBeLessThan(lines.findIndex((line) => line.includes('set-permissions editors')));
  });

  it('runs every example marked to run, as written, one shell session per file; the restore example undoes the newest change, not the whole board', async () => {
    const board = await createBoard(server);
    const clock = { id: `${board.boardId}-clock`, kind: 'clock', options: {}, advancedOptions: {}, integrationIds: [], layouts: [{ layoutId: board.layoutId, sectionId: board.sectionId, xOffset: 0, yOffset: 0, width: 1, height: 1 }] };
    const start = (await server.call('GET', `/api/boards/${board.boardId}`)).body;
    expect((await server.call('PUT', `/api/boards/${board.boardId}`, { body: { sections: start.sections, items: [clock] } })).status).toBe(200);
    for (let i = 0; i < 3; i++) await createBoard(server); // more boards than the paging example's page
    const runs = await runDocExamples({ baseUrl: server.directUrl, apiKey: server.adminKey, boardId: board.boardId }, docs);
    const failed = runs.filter((run) => run.status !== 0).map((run) => `${run.example.file}:${run.example.line} exited ${run.status}:\n${run.output.slice(-3000)}`);
    expect(failed).toEqual([]);
    // One shell session per file that has shell blocks to run, in the order of the files.
    const shellFiles = docs.map((doc) => doc.file).filter((file) => examples.some((example) => example.run && example.language === 'sh' && example.file === file));
    expect(runs.filter((run) => run.example.language === 'sh').map((run) => run.example.file)).toEqual(shellFiles);
    const output = runs.map((run) => run.output).join('\n');
    // The admin commands, the restore, the tRPC and typed clients all did their work.
    expect(output).toContain('"username":"admin"');
    expect(output).toMatch(/from-the-client \d+ 0/);
    expect(output).toMatch(/^link: <\/api\/boards\?limit=2&cursor=[^>]+>; rel="next"/im);
    // The restore answered the board (HIST-6: when the revision before the newest held the same content, it wrote
    // nothing), and it did not empty the board as restoring revision 1 did.
    const restoreExample = examples.find((example) => example.run && example.code.includes('/restore'))!;
    const session = runs.find((run) => run.example.language === 'sh' && run.example.file === restoreExample.file)!;
    const restoreOutput = session.output.split(`### ${restoreExample.file}:${restoreExample.line}\n`)[1].split('\n### ')[0];
    const answer = JSON.parse(restoreOutput.trim().split('\n').at(-1)!);
    expect({ id: answer.id, items: answer.items.map((each: { id: string }) => each.id) }).toEqual({ id: board.boardId, items: [clock.id] });
    expect((await server.call('GET', `/api/boards/${board.boardId}`)).body.items.map((each: { id: string }) => each.id)).toEqual([clock.id]);
    expect((await server.call('GET', '/api/boards')).body.map((each: { name: string }) => each.name)).toEqual(expect.arrayContaining(['from-trpc', 'from-the-client']));
  }, 300_000);
});
