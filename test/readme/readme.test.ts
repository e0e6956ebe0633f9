/**
 * DOCS-2: the README's shell and TypeScript examples run as written against a test server (scripts/readme-examples.ts):
 * the admin CLI commands, the curl sessions on a board, the tRPC client and the typed client in a plain `.ts` file.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { readmeExamples, runReadmeExamples } from '../../scripts/readme-examples';
import { useTestServer } from '../support/server';
import { createBoard } from '../boards-document/helpers';

const readme = readFileSync(path.resolve(__dirname, '../../README.md'), 'utf8');
const server = useTestServer();

describe('DOCS-2: README examples', () => {
  it('every sh and ts block says whether it runs, and most run', () => {
    const examples = readmeExamples(readme);
    expect(examples.filter((example) => example.run).length).toBeGreaterThanOrEqual(6);
    for (const example of examples.filter((each) => !each.run)) expect(example.reason).toBeTruthy();
    expect(() => readmeExamples('text\n```sh\necho unmarked\n```\n')).toThrow(/without a "<!-- readme-example: run -->"/);
  });

  it('the CLI example creates the group it then configures', () => {
    const cli = readmeExamples(readme).find((example) => example.code.includes('groups set-permissions editors'))!;
    const lines = cli.code.split('\n');
    expect(lines.findIndex((line) => line.startsWith('npx tessera groups create editors'))).toBeLessThan(lines.findIndex((line) => line.includes('set-permissions editors')));
  });

  it('runs every example marked to run, as written', async () => {
    const board = await createBoard(server);
    for (let i = 0; i < 3; i++) await createBoard(server); // more boards than the paging example's page
    const runs = await runReadmeExamples({ baseUrl: server.directUrl, apiKey: server.adminKey, boardId: board.boardId }, readme);
    const failed = runs.filter((run) => run.status !== 0).map((run) => `README.md:${run.example.line} exited ${run.status}:\n${run.output.slice(-3000)}`);
    expect(failed).toEqual([]);
    const output = runs.map((run) => run.output).join('\n');
    // The admin commands, the restore of revision 1, the tRPC and typed clients all did their work.
    expect(output).toContain('"username":"admin"');
    expect(output).toMatch(/from-the-client \d+ 0/);
    expect(output).toMatch(/^link: <\/api\/boards\?limit=2&cursor=[^>]+>; rel="next"/im);
    // After the restore the board is what revision 1 was (HIST-6; when it already was, the restore wrote nothing).
    const [first, now] = await Promise.all([server.call('GET', `/api/boards/${board.boardId}/history/1`), server.call('GET', `/api/boards/${board.boardId}`)]);
    const content = (doc: any) => ({ layouts: doc.layouts, sections: doc.sections, items: doc.items });
    expect(content(now.body)).toEqual(content(first.body));
    expect((await server.call('GET', '/api/boards')).body.map((each: { name: string }) => each.name)).toEqual(expect.arrayContaining(['from-trpc', 'from-the-client']));
  }, 300_000);
});
