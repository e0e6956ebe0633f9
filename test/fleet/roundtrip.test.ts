import { widgetKinds } from '../../src/widgets/registry';
import { useTestServer } from '../support/server';
import { unique } from '../support/unique';
import { expectOk } from '../boards-document/helpers';
import { everyKindBoard } from '../support/boardFiles';

/** Two instances on separate databases: boards are pulled from `source` and applied to `target`. */
const source = useTestServer();
const target = useTestServer();

const noChanges = { sections: { added: [], removed: [], updated: [] }, items: { added: [], removed: [], updated: [] }, layouts: { added: [], removed: [], updated: [] }, board: {} };

const withoutSource = (file: any) => {
  const { source: _source, ...rest } = file;
  return rest;
};

describe('round trip of every widget kind (FLEET-2, FILE-1)', () => {
  it('FLEET-2: pull then plan of an unedited file is no change, for every widget kind (bookmarks included)', async () => {
    expect(widgetKinds).toContain('bookmarks');
    const { boardId, name } = await everyKindBoard(source);
    const label = unique('repo-');
    const adopt = expectOk(await source.call('POST', '/api/boards/apply', { body: { managedBy: label, boards: [withoutSource(expectOk(await source.call('GET', `/api/boards/${boardId}/export`)))] } }));
    expect(adopt.boards[0]).toMatchObject({ name, action: 'update', changes: { items: noChanges.items, sections: noChanges.sections } });

    const pulled = expectOk(await source.call('GET', `/api/boards/${boardId}/export`));
    expect(pulled.items.map((i: any) => i.kind).sort()).toEqual([...widgetKinds].sort());
    const plan = expectOk(await source.call('POST', '/api/boards/apply?dryRun=true', { body: { managedBy: label, boards: [pulled] } }));
    expect(plan.boards[0]).toMatchObject({ action: 'unchanged', changes: noChanges });
    const single = expectOk(await source.call('POST', '/api/boards/import?onConflict=replace&dryRun=true', { body: pulled }));
    expect(single.changes).toEqual(noChanges);
  });

  it('FILE-1: export from one instance, import into another and export again gives the same file apart from source', async () => {
    const { boardId } = await everyKindBoard(source);
    const first = expectOk(await source.call('GET', `/api/boards/${boardId}/export`));
    const created = expectOk(await target.call('POST', '/api/boards/import', { body: first }), 201);
    const again = expectOk(await target.call('GET', `/api/boards/${created.boardId}/export`));
    expect(withoutSource(again)).toEqual(withoutSource(first));
    const plan = expectOk(await target.call('POST', '/api/boards/apply?dryRun=true', { body: { managedBy: 'x', boards: [again] } }));
    expect(plan.boards[0].changes.items).toEqual(noChanges.items);
  });
});
