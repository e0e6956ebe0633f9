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

  it('runs every example marked to run, as written; the restore example undoes the newest change, not the whole board', async () => {
    const board = await createBoard(server);
    const clock = { id: `${board.boardId}-clock`, kind: 'clock', options: {}, advancedOptions: {}, integrationIds: [], layouts: [{ layoutId: board.layoutId, sectionId: board.sectionId, xOffset: 0, yOffset: 0, width: 1, height: 1 }] };
    const start = (await server.call('GET', `/api/boards/${board.boardId}`)).body;
    expect((await server.call('PUT', `/api/boards/${board.boardId}`, { body: { sections: start.sections, items: [clock] } })).status).toBe(200);
    for (let i = 0; i < 3; i++) await createBoard(server); // more boards than the paging example's page
    const runs = await runReadmeExamples({ baseUrl: server.directUrl, apiKey: server.adminKey, boardId: board.boardId }, readme);
    const failed = runs.filter((run) => run.status !== 0).map((run) => `README.md:${run.example.line} exited ${run.status}:\n${run.output.slice(-3000)}`);
    expect(failed).toEqual([]);
    const output = runs.map((run) => run.output).join('\n');
    // The admin commands, the restore, the tRPC and typed clients all did their work.
    expect(output).toContain('"username":"admin"');
    expect(output).toMatch(/from-the-client \d+ 0/);
    expect(output).toMatch(/^link: <\/api\/boards\?limit=2&cursor=[^>]+>; rel="next"/im);
    // The restore answered the board (HIST-6: when the revision before the newest held the same content, it wrote
    // nothing), and it did not empty the board as restoring revision 1 did.
    const restoreExample = readmeExamples(readme).find((example) => example.run && example.code.includes('/restore'))!;
    const restoreOutput = runs[0].output.split(`### README.md:${restoreExample.line}\n`)[1].split('\n### README.md:')[0];
    const answer = JSON.parse(restoreOutput.trim().split('\n').at(-1)!);
    expect({ id: answer.id, items: answer.items.map((each: { id: string }) => each.id) }).toEqual({ id: board.boardId, items: [clock.id] });
    expect((await server.call('GET', `/api/boards/${board.boardId}`)).body.items.map((each: { id: string }) => each.id)).toEqual([clock.id]);
    expect((await server.call('GET', '/api/boards')).body.map((each: { name: string }) => each.name)).toEqual(expect.arrayContaining(['from-trpc', 'from-the-client']));
  }, 300_000);
});
