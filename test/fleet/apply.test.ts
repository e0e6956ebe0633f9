import { createActor } from '../support/actors';
import { stringify as toYaml } from 'yaml';
import { call, useTestServer } from '../support/server';
import { unique } from '../support/unique';
import { expectError, expectOk, grantIntegration } from '../boards-document/helpers';
import { clockBoardFile } from '../support/boardFiles';

const boardFile = (name: string, clocks = 2) => clockBoardFile(name, clocks);

const server = useTestServer();

const remedy = (them: string, edits: string) => `Pull ${them} again and redo your ${edits}, or apply with force=true to overwrite the changes made there.`;

const applySet = (body: unknown, query = '', key?: string) => server.call('POST', `/api/boards/apply${query}`, key ? { body, key } : { body });
const boardByName = async (name: string) => server.db('boards').whereRaw('lower(name) = lower(?)', [name]).first('id', 'version', 'revision', 'managedBy');
const historyOf = async (boardId: string) => expectOk(await server.call('GET', `/api/boards/${boardId}/history?limit=100`)).entries;

describe('managedBy (FLEET-1)', () => {
  it('FLEET-1: null by default on the document, the list entry and the board file', async () => {
    const name = unique('plain-');
    const { boardId } = expectOk(await server.call('POST', '/api/boards', { body: { name, columnCount: 12, isPublic: false } }), 201);
    expect(expectOk(await server.call('GET', `/api/boards/${boardId}`)).managedBy).toBeNull();
    const list = expectOk(await server.call('GET', '/api/boards'));
    expect(list.find((b: any) => b.id === boardId).managedBy).toBeNull();
    expect(expectOk(await server.call('GET', `/api/boards/${boardId}/export`)).managedBy).toBeNull();
  });

  it('FLEET-1: a set apply writes its label on every board; document, list and file show it', async () => {
    const label = unique('repo-');
    const name = unique('fleet-');
    expectOk(await applySet({ managedBy: label, boards: [boardFile(name)] }));
    const { id } = await boardByName(name);
    expect(expectOk(await server.call('GET', `/api/boards/${id}`)).managedBy).toBe(label);
    expect(expectOk(await server.call('GET', '/api/boards')).find((b: any) => b.id === id).managedBy).toBe(label);
    expect(expectOk(await server.call('GET', `/api/boards/${id}/export`)).managedBy).toBe(label);
  });
});

describe('set apply (FLEET-2)', () => {
  it('FLEET-2: a dry run answers the plan of the whole set and writes nothing', async () => {
    const label = unique('repo-');
    const names = [unique('a-'), unique('b-')];
    const plan = expectOk(await applySet({ managedBy: label, boards: names.map((n) => boardFile(n, 3)) }, '?dryRun=true'));
    expect(plan).toMatchObject({ managedBy: label, dryRun: true, summary: { create: 2, update: 0, unchanged: 0, delete: 0, changed: true } });
    expect(plan.boards.map((b: any) => [b.name, b.action, b.version])).toEqual(names.map((n) => [n, 'create', null]));
    expect(plan.boards[0].changes.items.added).toHaveLength(3);
    for (const name of names) expect(await boardByName(name)).toBeUndefined();
  });

  it('FLEET-2, FILE-4, FILE-7: a dry run plans ids that an earlier new board of the set takes as the apply does (other ids; the plan names them by the file\'s ids)', async () => {
    const label = unique('repo-');
    const first = boardFile(unique('a-'), 2);
    // The second new board repeats the first's section and item ids, and a board that exists holds a third id.
    const existing = boardFile(unique('c-'), 1);
    expectOk(await applySet({ managedBy: unique('other-'), boards: [existing] }));
    const second = { ...first, name: unique('b-'), items: [...first.items, { ...existing.items[0], layouts: [{ ...existing.items[0].layouts[0], sectionId: first.sections[0].id, yOffset: 5 }] }] };
    const set = { managedBy: label, boards: [first, second] };
    const added = (plan: any) => plan.boards.map((b: any) => ({ items: b.changes.items.added, sections: b.changes.sections.added }));
    const dry = added(expectOk(await applySet(set, '?dryRun=true')));
    const applied = added(expectOk(await applySet(set)));
    for (const result of [dry, applied]) expect(result[0]).toEqual({ items: first.items.map((i) => i.id).sort(), sections: [first.sections[0].id] });
    // FILE-7: the dry run names the elements it would give other ids by their ids in the file.
    expect([...dry[1].items].sort()).toEqual(second.items.map((i) => i.id).sort());
    expect(dry[1].sections).toEqual([first.sections[0].id]);
    // The apply gave them other ids, and answers those.
    expect(applied[1].items).toHaveLength(3);
    for (const id of [...first.items.map((i) => i.id), existing.items[0].id]) expect(applied[1].items).not.toContain(id);
    expect(applied[1].sections).toHaveLength(1);
    expect(applied[1].sections).not.toContain(first.sections[0].id);
  });

  it('FLEET-2, FILE-7: planning the same files against the same server twice answers the same plan, byte for byte: new layouts by name, re-identified elements by the file\'s ids', async () => {
    const label = unique('repo-');
    const existing = boardFile(unique('taken-'), 2);
    expectOk(await applySet({ managedBy: label, boards: [existing] }));
    const twoLayouts = (file: ReturnType<typeof boardFile>) => ({
      ...file,
      layouts: [...file.layouts, { name: 'Phone (tall)', columnCount: 4, breakpoint: 600 }],
      items: file.items.map((i) => ({ ...i, layouts: [...i.layouts, { ...i.layouts[0], layout: 'Phone (tall)', xOffset: 0 }] })),
    });
    // A new board with two new layouts whose ids are used on another board (FILE-4), and the existing board with a
    // layout added.
    const created = { ...twoLayouts(existing), name: unique('new-') };
    const set = { managedBy: label, boards: [created, twoLayouts(existing)] };
    const first = await applySet(set, '?dryRun=true');
    const second = await applySet(set, '?dryRun=true');
    expect(first.status).toBe(200);
    expect(JSON.stringify(second.body)).toBe(JSON.stringify(first.body));
    const [create, update] = first.body.boards;
    expect(create.changes.layouts.added).toEqual(['Base', 'Phone (tall)']);
    expect([...create.changes.items.added].sort()).toEqual(existing.items.map((i) => i.id).sort());
    expect(create.changes.sections.added).toEqual([existing.sections[0].id]);
    expect(update.changes.layouts.added).toEqual(['Phone (tall)']);
  });

  it('FLEET-2, FLEET-8: a real run creates every board, answers the same plan, and history shows the commit', async () => {
    const label = unique('repo-');
    const names = [unique('a-'), unique('b-')];
    const origin = { commit: '3f1c2a9d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f', message: 'Add two boards' };
    const plan = expectOk(await applySet({ managedBy: label, origin, boards: names.map((n) => boardFile(n)) }));
    expect(plan).toMatchObject({ dryRun: false, summary: { create: 2, changed: true } });
    for (const name of names) {
      const board = await boardByName(name);
      expect(board.managedBy).toBe(label);
      const [entry] = await historyOf(board.id);
      expect(entry).toMatchObject({ operation: 'applyBoardSet', origin: { managedBy: label, ...origin } });
    }
  });

  it('FLEET-5: applying the same set again changes nothing: no new revision, no version bump', async () => {
    const label = unique('repo-');
    const files = [boardFile(unique('a-')), boardFile(unique('b-'))];
    expectOk(await applySet({ managedBy: label, boards: files }));
    const before = await Promise.all(files.map(async (f) => ({ board: await boardByName(f.name), entries: (await historyOf((await boardByName(f.name)).id)).length })));
    const plan = expectOk(await applySet({ managedBy: label, boards: files }));
    expect(plan.summary).toEqual({ create: 0, update: 0, unchanged: 2, delete: 0, conflict: 0, changed: false });
    for (const [i, f] of files.entries()) {
      expect(await boardByName(f.name)).toEqual(before[i].board);
      expect(await historyOf(before[i].board.id)).toHaveLength(before[i].entries);
    }
  });

  it('FLEET-2: a changed file is an update with its changes; the version moves by one', async () => {
    const label = unique('repo-');
    const file = boardFile(unique('a-'), 2);
    expectOk(await applySet({ managedBy: label, boards: [file] }));
    const { version } = await boardByName(file.name);
    const changed = { ...file, items: file.items.slice(1) };
    const plan = expectOk(await applySet({ managedBy: label, boards: [changed] }));
    expect(plan.boards[0]).toMatchObject({ action: 'update', version, changes: { items: { removed: [file.items[0].id] } } });
    expect((await boardByName(file.name)).version).toBe(version + 1);
  });

  it('FLEET-2, FLEET-16: one stale board in a set of ten writes none: 409 naming the board and the remedy', async () => {
    const label = unique('repo-');
    const files = Array.from({ length: 10 }, () => boardFile(unique('ten-')));
    expectOk(await applySet({ managedBy: label, boards: files }));
    const exported = await Promise.all(files.map(async (f) => expectOk(await server.call('GET', `/api/boards/${(await boardByName(f.name)).id}/export`))));
    // Someone edits board 7 through the API after the files were taken.
    const stale = exported[7];
    const board7 = await boardByName(stale.name);
    expectOk(await server.call('PATCH', `/api/boards/${board7.id}/items/${stale.items[0].id}`, { body: { options: { is24HourFormat: false } } }));
    const before = await Promise.all(files.map((f) => boardByName(f.name)));
    const edited = exported.map((f: any) => ({ ...f, items: f.items.slice(1) }));
    const result = await applySet({ managedBy: label, boards: edited });
    expectError(result, 409, 'CONFLICT', `Board ${stale.name}: Changed on the server since its file's base. ${remedy('it', 'edit')}`);
    expect(result.body.data).toMatchObject({ board: stale.name, boards: [stale.name] });
    expect(await Promise.all(files.map((f) => boardByName(f.name)))).toEqual(before);
  });

  it('FLEET-6: prune deletes only boards of its own managedBy that the set does not name', async () => {
    const label = unique('repo-');
    const other = unique('other-');
    const [keep, drop] = [boardFile(unique('keep-')), boardFile(unique('drop-'))];
    const foreign = boardFile(unique('foreign-'));
    const unmanaged = unique('unmanaged-');
    expectOk(await applySet({ managedBy: label, boards: [keep, drop] }));
    expectOk(await applySet({ managedBy: other, boards: [foreign] }));
    expectOk(await server.call('POST', '/api/boards', { body: { name: unmanaged, columnCount: 12, isPublic: false } }), 201);

    const dry = expectOk(await applySet({ managedBy: label, boards: [keep] }, '?prune=true&dryRun=true'));
    expect(dry.boards.map((b: any) => [b.name, b.action])).toEqual([[keep.name, 'unchanged'], [drop.name, 'delete']]);
    expect(await boardByName(drop.name)).toBeDefined();

    const noPrune = expectOk(await applySet({ managedBy: label, boards: [keep] }));
    expect(noPrune.summary.delete).toBe(0);
    expect(await boardByName(drop.name)).toBeDefined();

    const plan = expectOk(await applySet({ managedBy: label, boards: [keep] }, '?prune=true'));
    expect(plan.summary).toMatchObject({ unchanged: 1, delete: 1 });
    expect(await boardByName(drop.name)).toBeUndefined();
    expect(await boardByName(keep.name)).toBeDefined();
    expect(await boardByName(foreign.name)).toBeDefined();
    expect(await boardByName(unmanaged)).toBeDefined();
  });

  it('FLEET-3: a board another source manages is a 409 naming the board and its source; nothing written', async () => {
    const [label, other] = [unique('repo-'), unique('other-')];
    const file = boardFile(unique('owned-'));
    expectOk(await applySet({ managedBy: other, boards: [file] }));
    const fresh = boardFile(unique('fresh-'));
    const result = await applySet({ managedBy: label, boards: [fresh, file] });
    expectError(result, 409, 'CONFLICT', `Board ${file.name}: Board is managed by ${other}`);
    expect(await boardByName(fresh.name)).toBeUndefined();
  });

  it('FLEET-3: a board no source manages is taken over', async () => {
    const label = unique('repo-');
    const name = unique('adopt-');
    expectOk(await server.call('POST', '/api/boards', { body: { name, columnCount: 12, isPublic: false } }), 201);
    const plan = expectOk(await applySet({ managedBy: label, boards: [boardFile(name)] }));
    expect(plan.boards[0]).toMatchObject({ action: 'update', changes: { board: { managedBy: { from: null, to: label } } } });
    expect((await boardByName(name)).managedBy).toBe(label);
  });

  it('FLEET-4: permission rules hold per board: 404 without full access, 403 without board-create, 403 pruning without full', async () => {
    const label = unique('repo-');
    const file = boardFile(unique('perm-'));
    expectOk(await applySet({ managedBy: label, boards: [file] }));
    const { id } = await boardByName(file.name);
    const creator = await createActor(server, { permissions: ['board-create'] });
    // FLEET-15: the labels the admin's applies claimed are given to the caller, so that the board rules decide.
    const giveLabel = async (managedBy: string, userId: string) => expectOk(await server.call('PUT', `/api/boards/labels/${encodeURIComponent(managedBy)}/owner`, { body: { userId } }));
    await giveLabel(label, creator.userId);
    const fresh = boardFile(unique('mine-'));
    expectError(await applySet({ managedBy: label, boards: [fresh, file] }, '', creator.key), 404, 'NOT_FOUND', `Board ${file.name}: Board not found`);
    expect(await boardByName(fresh.name)).toBeUndefined();

    const plain = await createActor(server);
    await giveLabel(label, plain.userId);
    const x = boardFile(unique('x-'));
    expectError(await applySet({ managedBy: label, boards: [x] }, '', plain.key), 403, 'FORBIDDEN', `Board ${x.name}: Permission denied`);
    await giveLabel(label, creator.userId);

    // A board of the label the caller can view but not fully manage cannot be pruned; one it cannot see is left alone.
    await server.db('board_user_permissions').insert({ boardId: id, userId: creator.userId, permission: 'view' });
    const other = unique('repo-');
    const hidden = boardFile(unique('hidden-'));
    expectOk(await applySet({ managedBy: other, boards: [hidden] }));
    await giveLabel(other, creator.userId);
    expectError(await applySet({ managedBy: label, boards: [fresh] }, '?prune=true', creator.key), 403, 'FORBIDDEN', `Board ${file.name}: Permission denied`);
    expect(await boardByName(fresh.name)).toBeUndefined();
    const ok = expectOk(await applySet({ managedBy: other, boards: [fresh] }, '?prune=true', creator.key));
    expect(ok.boards.map((b: any) => b.action)).toEqual(['create']);
    expect(await boardByName(hidden.name)).toBeDefined();
  });

  it('FLEET-2: a name twice in a set, or more than 200 files, is a 400; nothing written', async () => {
    const name = unique('twice-');
    expectError(await applySet({ managedBy: 'r', boards: [boardFile(name), boardFile(name.toUpperCase())] }), 400, 'BAD_REQUEST', `Board names must be unique in a set: ${name.toUpperCase()}`);
    expect(await boardByName(name)).toBeUndefined();
    const many = Array.from({ length: 201 }, () => boardFile(unique('m-'), 0));
    expectError(await applySet({ managedBy: 'r', boards: many }), 400, 'BAD_REQUEST');
  });

  it('FLEET-4: an invalid file is a 400 naming its board', async () => {
    const file = boardFile(unique('bad-'));
    const broken = { ...file, items: [{ ...file.items[0], layouts: [{ ...file.items[0].layouts[0], layout: 'Nope' }] }] };
    const result = await applySet({ managedBy: 'r', boards: [boardFile(unique('ok-')), broken] });
    expectError(result, 400, 'BAD_REQUEST', `Board ${file.name}: Positions reference layouts the file does not define: Nope`);
  });
});

describe('a file exported with its source, applied by a set again and again (FLEET-9)', () => {
  const exportOf = async (id: string) => expectOk(await server.call('GET', `/api/boards/${id}/export`));

  it('FLEET-9: export -> edit -> apply -> edit -> apply; an unchanged file plans and applies as unchanged', async () => {
    const label = unique('repo-');
    const name = unique('exported-');
    expectOk(await server.call('POST', '/api/boards/import', { body: boardFile(name, 3) }), 201);
    const exported = await exportOf((await boardByName(name)).id);
    expect(exported.source).toMatchObject({ version: expect.any(Number) });

    const first = { ...exported, items: exported.items.slice(1) };
    expect(expectOk(await applySet({ managedBy: label, boards: [first] })).boards[0].action).toBe('update');
    const second = { ...first, items: first.items.slice(1) };
    const plan = expectOk(await applySet({ managedBy: label, boards: [second] }));
    expect(plan.boards[0]).toMatchObject({ action: 'update', changes: { items: { removed: [first.items[0].id] } } });

    const { version } = await boardByName(name);
    expect(expectOk(await applySet({ managedBy: label, boards: [second] }, '?dryRun=true')).boards[0].action).toBe('unchanged');
    expect(expectOk(await applySet({ managedBy: label, boards: [second] })).summary).toMatchObject({ unchanged: 1, changed: false });
    expect((await boardByName(name)).version).toBe(version);
  });

  it('FLEET-9, FLEET-16: a hand edit through the API after the set wrote the board: the dry run answers 200 and plans it as a conflict (what changed there, who changed it); the apply is a 409; nothing written', async () => {
    const label = unique('repo-');
    const name = unique('exported-');
    expectOk(await server.call('POST', '/api/boards/import', { body: boardFile(name, 3) }), 201);
    const exported = await exportOf((await boardByName(name)).id);
    const edited = { ...exported, items: exported.items.slice(1) };
    expectOk(await applySet({ managedBy: label, boards: [edited] }));
    const { id } = await boardByName(name);
    const setRevision = (await historyOf(id))[0].revision;
    const editor = await createActor(server, { permissions: ['board-modify-all'] });
    expectOk(await server.call('PATCH', `/api/boards/${id}/items/${edited.items[0].id}`, { body: { options: { is24HourFormat: false } }, key: editor.key }));
    const before = await boardByName(name);
    const again = { ...edited, items: edited.items.slice(1) };

    const plan = expectOk(await applySet({ managedBy: label, boards: [again] }, '?dryRun=true'));
    expect(plan.summary).toEqual({ create: 0, update: 0, unchanged: 0, delete: 0, conflict: 1, changed: true });
    const [entry] = plan.boards;
    expect(entry).toMatchObject({ name, action: 'conflict', boardId: id, version: before.version, changes: { items: { removed: [edited.items[0].id] } } });
    // The base is the set's own last write (FLEET-9), not the export: only the hand edit is the server's change.
    expect(entry.conflict).toMatchObject({
      baseRevision: setRevision,
      version: before.version,
      serverChanges: { items: { added: [], removed: [], updated: [edited.items[0].id] }, sections: { added: [], removed: [], updated: [] }, board: {} },
    });
    expect(entry.conflict.changedBy).toHaveLength(1);
    expect(entry.conflict.changedBy[0]).toMatchObject({ revision: setRevision + 1, operation: 'updateBoardItem', actor: { userId: editor.userId, name: editor.username } });
    // It is the history's own diff from the base revision.
    const diff = expectOk(await server.call('GET', `/api/boards/${id}/diff?from=${setRevision}`));
    expect(entry.conflict.serverChanges).toEqual(diff.changes);

    const refused = await applySet({ managedBy: label, boards: [again] });
    expectError(refused, 409, 'CONFLICT', `Board ${name}: Changed on the server since its file's base. ${remedy('it', 'edit')}`);
    expect(refused.body.data).toMatchObject({ board: name, boards: [name], conflicts: [{ name, boardId: id, conflict: entry.conflict }] });
    expect(await boardByName(name)).toEqual(before);
    // The way on without force: a file taken again after the edit (its source at the version now) applies.
    const fresh = { ...(await exportOf(id)), items: again.items };
    expect(expectOk(await applySet({ managedBy: label, boards: [fresh] })).boards[0].action).toBe('update');
  });

  it('FLEET-16: one conflicting board does not fail the plan of the others; the apply names every conflicting board; force=true overwrites them', async () => {
    const label = unique('repo-');
    const files = [boardFile(unique('c1-')), boardFile(unique('c2-')), boardFile(unique('ok-'))];
    expectOk(await applySet({ managedBy: label, boards: files }));
    const exported = await Promise.all(files.map(async (f) => exportOf((await boardByName(f.name)).id)));
    // Both first boards are edited through the API after the files were taken; the third is not.
    for (const file of exported.slice(0, 2)) {
      const { id } = await boardByName(file.name);
      expectOk(await server.call('PATCH', `/api/boards/${id}/items/${file.items[0].id}`, { body: { options: { is24HourFormat: false } } }));
    }
    const changed = exported.map((f: any) => ({ ...f, items: f.items.slice(1) }));
    const names = files.map((f) => f.name);

    const plan = expectOk(await applySet({ managedBy: label, boards: changed }, '?dryRun=true'));
    expect(plan.boards.map((b: any) => [b.name, b.action])).toEqual([[names[0], 'conflict'], [names[1], 'conflict'], [names[2], 'update']]);
    expect(plan.summary).toMatchObject({ update: 1, conflict: 2, changed: true });
    expect(plan.boards[2].conflict).toBeUndefined();

    const before = await Promise.all(names.map(boardByName));
    const refused = await applySet({ managedBy: label, boards: changed });
    expectError(refused, 409, 'CONFLICT', `Boards ${names[0]}, ${names[1]}: Changed on the server since their files' base. ${remedy('them', 'edits')}`);
    expect(refused.body.data.boards).toEqual(names.slice(0, 2));
    expect(refused.body.data.conflicts.map((c: any) => c.name)).toEqual(names.slice(0, 2));
    expect(refused.body.data.board).toBeUndefined();
    expect(await Promise.all(names.map(boardByName))).toEqual(before);

    const forcedPlan = expectOk(await applySet({ managedBy: label, boards: changed }, '?dryRun=true&force=true'));
    expect(forcedPlan.boards.map((b: any) => b.action)).toEqual(['update', 'update', 'update']);
    expect(forcedPlan.boards[0].conflict.serverChanges.items.updated).toEqual([exported[0].items[0].id]);
    const forced = expectOk(await applySet({ managedBy: label, boards: changed }, '?force=true'));
    expect(forced.summary).toMatchObject({ update: 3, conflict: 0, changed: true });
    for (const [i, name] of names.entries()) {
      const board = await boardByName(name);
      expect(board.version).toBe(before[i].version + 1);
      expect(expectOk(await server.call('GET', `/api/boards/${board.id}`)).items.map((it: any) => it.id)).toEqual(changed[i].items.map((it: any) => it.id));
    }
    // Overwritten, the boards are the set's again: the next plan has nothing to say.
    expect(expectOk(await applySet({ managedBy: label, boards: changed }, '?dryRun=true')).summary).toMatchObject({ unchanged: 3, conflict: 0, changed: false });
  });
});

describe('set apply: bodies and bindings (FLEET-2, FLEET-4)', () => {
  it('FLEET-2: a YAML body applies as JSON does; a YAML body over YAML_BODY_LIMIT is a 413 and writes nothing', async () => {
    const label = unique('repo-');
    const names = [unique('yaml-a-'), unique('yaml-b-')];
    const body = toYaml({ managedBy: label, boards: names.map((n) => boardFile(n)) });
    const yamlApply = (raw: string, query = '') => call(server.directUrl, 'POST', `/api/boards/apply${query}`, { key: server.adminKey, raw, headers: { 'Content-Type': 'application/yaml' } });
    const dry = expectOk(await yamlApply(body, '?dryRun=true'));
    expect(dry.boards.map((b: any) => [b.name, b.action])).toEqual(names.map((n) => [n, 'create']));
    expect(expectOk(await yamlApply(body)).summary).toMatchObject({ create: 2, changed: true });
    expect((await boardByName(names[0])).managedBy).toBe(label);

    const big = unique('yaml-big-');
    const padding = `# ${'x'.repeat(1024)}\n`.repeat(2 * 1024 + 16);
    expectError(await yamlApply(`${padding}${toYaml({ managedBy: label, boards: [boardFile(big)] })}`), 413, 'PAYLOAD_TOO_LARGE', `Request body larger than ${2 * 1024 * 1024} bytes`);
    expect(await boardByName(big)).toBeUndefined();
  });

  it('FLEET-4, BIND-2: a binding the caller may not add is a 403 naming the board; nothing of the set is written; granted, it applies', async () => {
    const label = unique('repo-');
    const integration = unique('integration');
    const integrationName = unique('Sonarr ');
    await server.db('integrations').insert({ id: integration, name: integrationName, kind: 'mock', url: 'http://127.0.0.1:1' });
    const user = await createActor(server, { permissions: ['board-create'] });
    const fresh = boardFile(unique('fresh-'));
    const bound = boardFile(unique('bound-'));
    bound.items[0] = { ...bound.items[0], integrations: [{ name: integrationName, kind: 'mock' }] } as (typeof bound.items)[number];
    for (const query of ['?dryRun=true', '']) {
      const refused = await applySet({ managedBy: label, boards: [fresh, bound] }, query, user.key);
      expectError(refused, 403, 'FORBIDDEN', `Board ${bound.name}: No access to integrations: ${integration}`);
      expect(refused.body.data.board).toBe(bound.name);
    }
    expect(await boardByName(fresh.name)).toBeUndefined();
    await grantIntegration(server, integration, user.userId, 'use');
    expect(expectOk(await applySet({ managedBy: label, boards: [fresh, bound] }, '', user.key)).summary).toMatchObject({ create: 2 });
  });
});
