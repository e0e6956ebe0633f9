/** Unit tests of the pure content plan (src/boards/document/contentPlan.ts): no HTTP, no database. */
import { compareStates } from '../../src/boards/document/changes';
import { planContent, writesAnything } from '../../src/boards/document/contentPlan';
import { stateAfterContentWrites } from '../../src/boards/document/stateAfter';
import { BoardState, toBoardDocument } from '../../src/boards/document/model';
import type { BoardContent } from '../../src/boards/document/types';

const rect = { xOffset: 0, yOffset: 0, width: 1, height: 1 };

function storedBoard(): BoardState {
  return {
    board: { id: 'b', name: 'b', version: 3, revision: 7, isPublic: false, creatorId: null },
    creator: null,
    layouts: [
      { id: 'base', boardId: 'b', name: 'Base', columnCount: 12, breakpoint: 0 },
      { id: 'wide', boardId: 'b', name: 'Wide', columnCount: 24, breakpoint: 1200 },
    ],
    sections: [
      { id: 'e', boardId: 'b', kind: 'empty', xOffset: 0, yOffset: 0, name: null, options: null },
      { id: 'c', boardId: 'b', kind: 'category', xOffset: 0, yOffset: 1, name: 'Cat', options: null },
      { id: 'd', boardId: 'b', kind: 'dynamic', xOffset: null, yOffset: null, name: null, options: { title: '', customCssClasses: [], borderColor: '' } },
    ],
    sectionLayouts: [{ sectionId: 'd', layoutId: 'base', parentSectionId: 'e', ...rect, xOffset: 4 }],
    items: [
      { id: 'i1', boardId: 'b', kind: 'clock', options: { a: 1 }, advancedOptions: { title: null, customCssClasses: [], borderColor: '' } },
      { id: 'i2', boardId: 'b', kind: 'clock', options: {}, advancedOptions: { title: null, customCssClasses: [], borderColor: '' } },
      { id: 'ghost', boardId: 'b', kind: 'retiredWidget', options: {}, advancedOptions: {} },
    ],
    itemLayouts: [
      { itemId: 'i1', layoutId: 'base', sectionId: 'e', ...rect },
      { itemId: 'i1', layoutId: 'wide', sectionId: 'e', ...rect },
      { itemId: 'i2', layoutId: 'base', sectionId: 'e', ...rect, xOffset: 1 },
    ],
    bindings: [{ itemId: 'i1', integrationId: 'int1' }],
    collapsedSectionIds: new Set(['c']),
    userPermissions: [],
    groupPermissions: [],
    reader: { userId: null, admin: false },
  };
}

/** The `{sections, items}` of the stored board's own document: what a client PUTs back unchanged (PUT-2). */
function unchangedPayload(state: BoardState): BoardContent {
  const document = toBoardDocument(state);
  return JSON.parse(JSON.stringify({ sections: document.sections, items: document.items }));
}

/** What the plan changes (PLAN-2): the comparison of the board before and after its writes. */
const changesOf = (state: BoardState, plan: ReturnType<typeof planContent>) => compareStates(state, stateAfterContentWrites(state, plan.writes));

describe('planContent', () => {
  it('PUT-15: the board\'s own document plans no write and no change; PUT-13 reports the hidden item it keeps', () => {
    const state = storedBoard();
    const plan = planContent(state, unchangedPayload(state));
    expect(writesAnything(plan.writes)).toBe(false);
    expect(changesOf(state, plan)).toEqual({
      sections: { added: [], removed: [], updated: [] },
      items: { added: [], removed: [], updated: [] },
      layouts: { added: [], removed: [], updated: [] },
      board: {},
    });
    expect(plan.ignored).toEqual([{ rule: 'PUT-13', path: null, message: 'Item ghost of widget kind "retiredWidget", unknown to this server, is kept as stored' }]);
    expect(plan.newlyBoundIntegrationIds).toEqual([]);
    expect(plan.integrationIds).toEqual(['int1']);
  });

  it('PUT-3, PUT-4: elements absent from the payload are removed, new ids are added with exactly their positions', () => {
    const state = storedBoard();
    const payload = unchangedPayload(state);
    payload.items = payload.items.filter((item) => item.id !== 'i2');
    payload.items.push({ id: 'new', kind: 'clock', options: {}, integrationIds: ['int2'], advancedOptions: {}, layouts: [{ layoutId: 'base', sectionId: 'n', ...rect }] });
    payload.sections = payload.sections.filter((section) => section.id !== 'c');
    payload.sections.push({ id: 'n', kind: 'empty', xOffset: 0, yOffset: 5 });
    const plan = planContent(state, payload);
    expect(changesOf(state, plan).items).toEqual({ added: ['new'], removed: ['i2'], updated: [] });
    expect(changesOf(state, plan).sections).toEqual({ added: ['n'], removed: ['c'], updated: [] });
    expect(plan.writes.items.delete).toEqual(['i2']);
    expect(plan.writes.sections.delete).toEqual(['c']);
    expect(plan.writes.sections.insert).toEqual([{ id: 'n', kind: 'empty', xOffset: 0, yOffset: 5, name: null, options: null }]);
    expect(plan.writes.itemPositions.insert).toEqual([{ itemId: 'new', layoutId: 'base', sectionId: 'n', ...rect }]);
    expect(plan.writes.bindings.insert).toEqual([{ itemId: 'new', integrationId: 'int2' }]);
    expect(plan.newItemIds).toEqual(['new']);
    expect(plan.newSectionIds).toEqual(['n']);
    expect(plan.newlyBoundIntegrationIds).toEqual(['int2']);
  });

  it('PUT-5: an existing item\'s position on a layout it has none on is ignored; existing positions update', () => {
    const state = storedBoard();
    const payload = unchangedPayload(state);
    const i2 = payload.items.find((item) => item.id === 'i2')!;
    i2.layouts = [{ layoutId: 'base', sectionId: 'e', ...rect, xOffset: 6 }, { layoutId: 'wide', sectionId: 'e', ...rect }];
    const plan = planContent(state, payload);
    expect(plan.writes.itemPositions.update).toEqual([{ itemId: 'i2', layoutId: 'base', sectionId: 'e', ...rect, xOffset: 6 }]);
    expect(plan.writes.itemPositions.insert).toEqual([]);
    expect(changesOf(state, plan).items.updated).toEqual(['i2']);
    const index = payload.items.indexOf(i2);
    expect(plan.ignored).toContainEqual({
      rule: 'PUT-5',
      path: `/items/${index}/layouts/1`,
      message: 'Item i2 has no position in layout wide: a save only updates an existing item\'s existing positions',
    });
  });

  it('PUT-5: a dynamic section\'s position on a layout it has none on is ignored', () => {
    const state = storedBoard();
    const payload = unchangedPayload(state);
    const index = payload.sections.findIndex((section) => section.id === 'd');
    const dynamic = payload.sections[index] as any;
    dynamic.layouts.push({ layoutId: 'wide', parentSectionId: 'e', ...rect });
    const plan = planContent(state, payload);
    expect(writesAnything(plan.writes)).toBe(false);
    expect(plan.ignored).toContainEqual({ rule: 'PUT-5', path: `/sections/${index}/layouts/1`, message: 'Section d has no position in layout wide: a save only updates existing positions' });
  });

  it('PUT-6: a kind change is ignored and the stored kind decides what is written', () => {
    const state = storedBoard();
    const payload = unchangedPayload(state);
    const index = payload.sections.findIndex((section) => section.id === 'e');
    payload.sections[index] = { id: 'e', kind: 'category', name: 'Named', yOffset: 2, xOffset: 0, collapsed: false };
    const plan = planContent(state, payload);
    expect(plan.ignored).toContainEqual({
      rule: 'PUT-6',
      path: `/sections/${index}/kind`,
      message: 'Section e is stored as empty; a save never changes a section\'s kind (delete it and add a new one)',
    });
    expect(plan.writes.sections.update).toEqual([{ id: 'e', kind: 'empty', xOffset: 0, yOffset: 2, name: null, options: null }]);
  });

  it('PUT-7 and PUT-8: xOffset other than 0 and a different collapsed state are reported and not written', () => {
    const state = storedBoard();
    const payload = unchangedPayload(state);
    const index = payload.sections.findIndex((section) => section.id === 'c');
    payload.sections[index] = { id: 'c', kind: 'category', name: 'Cat', yOffset: 1, xOffset: 3, collapsed: false };
    const plan = planContent(state, payload);
    expect(writesAnything(plan.writes)).toBe(false);
    expect(plan.ignored.map((part) => [part.rule, part.path])).toEqual(
      expect.arrayContaining([
        ['PUT-7', `/sections/${index}/xOffset`],
        ['PUT-8', `/sections/${index}/collapsed`],
      ]),
    );
  });

  it('BIND-2, BIND-4: moving a binding between items is not a new binding; removed bindings of kept items are deleted', () => {
    const state = storedBoard();
    const payload = unchangedPayload(state);
    payload.items.find((item) => item.id === 'i1')!.integrationIds = [];
    payload.items.find((item) => item.id === 'i2')!.integrationIds = ['int1'];
    const plan = planContent(state, payload);
    expect(plan.newlyBoundIntegrationIds).toEqual([]);
    expect(plan.writes.bindings).toEqual({ insert: [{ itemId: 'i2', integrationId: 'int1' }], delete: [{ itemId: 'i1', integrationId: 'int1' }] });
    expect(changesOf(state, plan).items.updated.sort()).toEqual(['i1', 'i2']);
  });

  it('an item counts as updated when its options or advanced options change, compared as jsonb compares', () => {
    const state = storedBoard();
    const payload = unchangedPayload(state);
    payload.items.find((item) => item.id === 'i2')!.advancedOptions = { title: 'T', customCssClasses: [], borderColor: '' };
    const reordered = planContent(state, payload);
    expect(changesOf(state, reordered).items.updated).toEqual(['i2']);
    expect(reordered.writes.items.update).toEqual([{ id: 'i2', kind: 'clock', options: {}, advancedOptions: { title: 'T', customCssClasses: [], borderColor: '' } }]);
  });
});
