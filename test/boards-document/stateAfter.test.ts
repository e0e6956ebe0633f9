/**
 * The board computed from a plan (src/boards/document/stateAfter.ts) equals the board the database holds after the
 * store applied that plan: random saves and layout changes on a real database, each compared byte for byte as the
 * document a client receives (order of rows, JSON key order of options, cascades of deleted sections and layouts).
 */
import fc from 'fast-check';
import { planContent, planContentChange } from '../../src/boards/document/contentPlan';
import { planLayoutChange } from '../../src/boards/document/layoutPlan';
import { BoardState, serializeState, toBoardDocument } from '../../src/boards/document/model';
import { byBytes, stateAfterContentWrites, stateAfterLayoutPlan } from '../../src/boards/document/stateAfter';
import { applyContentWrites, applyLayoutPlan, loadBoardState } from '../../src/boards/document/store';
import type { BoardContent, BoardItemInput, BoardSectionInput } from '../../src/boards/document/types';
import { validateContent } from '../../src/boards/document/validate';
import { createBoard, createIntegration } from './helpers';
import { useTestServer } from '../support/server';
import { unique } from '../support/unique';

const server = useTestServer();

const key = fc.oneof(fc.string({ maxLength: 5 }), fc.constantFrom('__proto__', 'é', 'ab', 'b', 'aa', 'B', 'title'));
const scalar = fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.string({ maxLength: 6 }), fc.boolean(), fc.constant(null));
const jsonObject = fc.dictionary(key, fc.oneof(scalar, fc.array(scalar, { maxLength: 3 }), fc.dictionary(key, scalar, { maxKeys: 3 })), { maxKeys: 5 });
const rect = fc.record({ xOffset: fc.nat(12), yOffset: fc.nat(30), width: fc.integer({ min: 1, max: 6 }), height: fc.integer({ min: 1, max: 4 }) });

/** A random edit of the board's own `{sections, items}`: what a client might PUT after reading it. */
const contentEdit = fc.record({
  removeItems: fc.array(fc.nat(), { maxLength: 3 }),
  removeSections: fc.array(fc.nat(), { maxLength: 2 }),
  addSections: fc.array(fc.record({ kind: fc.constantFrom('empty', 'category', 'dynamic'), y: fc.nat(9), x: fc.nat(2), collapsed: fc.boolean(), parent: fc.nat() }), { maxLength: 2 }),
  retypeSections: fc.array(fc.record({ index: fc.nat(), kind: fc.constantFrom('empty', 'category', 'dynamic'), y: fc.nat(9), x: fc.nat(2) }), { maxLength: 2 }),
  addItems: fc.array(fc.record({ options: jsonObject, section: fc.nat(), layouts: fc.array(fc.tuple(fc.nat(), rect), { maxLength: 3 }), bind: fc.array(fc.nat(2), { maxLength: 2 }) }), { maxLength: 3 }),
  editItems: fc.array(
    fc.record({ index: fc.nat(), options: fc.option(jsonObject), advanced: fc.option(fc.record({ title: fc.option(fc.string({ maxLength: 4 })), extra: fc.boolean() })), move: fc.option(fc.tuple(fc.nat(), fc.nat(), rect)), bind: fc.option(fc.array(fc.nat(2), { maxLength: 2 })) }),
    { maxLength: 4 },
  ),
});

type ContentEdit = typeof contentEdit extends fc.Arbitrary<infer T> ? T : never;

const layoutEdit = fc.record({
  add: fc.option(fc.record({ columns: fc.integer({ min: 1, max: 24 }), breakpoint: fc.nat(2000) })),
  change: fc.option(fc.record({ index: fc.nat(), columns: fc.integer({ min: 1, max: 24 }) })),
  remove: fc.option(fc.nat()),
});

const pick = <T>(list: readonly T[], index: number): T | undefined => (list.length === 0 ? undefined : list[index % list.length]);

function editContent(state: BoardState, edit: ContentEdit, integrations: string[]): BoardContent {
  const document = toBoardDocument(state);
  const content: BoardContent = JSON.parse(JSON.stringify({ sections: document.sections, items: document.items }));
  const layoutIds = state.layouts.map((l) => l.id);
  for (const index of edit.removeItems) if (content.items.length > 0) content.items.splice(index % content.items.length, 1);
  for (const index of edit.removeSections) if (content.sections.length > 1) content.sections.splice(index % content.sections.length, 1);
  for (const retype of edit.retypeSections) {
    const section = pick(content.sections, retype.index);
    if (!section) continue;
    const at = content.sections.indexOf(section);
    const parent = content.sections.find((s) => s.kind !== 'dynamic' && s.id !== section.id);
    content.sections[at] =
      retype.kind === 'dynamic'
        ? { id: section.id, kind: 'dynamic', options: { title: 'd' }, layouts: parent ? [{ layoutId: layoutIds[0], parentSectionId: parent.id, xOffset: 0, yOffset: 0, width: 2, height: 2 }] : [] }
        : retype.kind === 'category'
          ? { id: section.id, kind: 'category', name: 'Renamed', yOffset: retype.y, xOffset: retype.x, collapsed: false }
          : { id: section.id, kind: 'empty', yOffset: retype.y, xOffset: retype.x };
  }
  for (const added of edit.addSections) {
    const id = unique('sec');
    const parent = pick(content.sections.filter((s) => s.kind !== 'dynamic'), added.parent);
    const section: BoardSectionInput =
      added.kind === 'dynamic'
        ? { id, kind: 'dynamic', options: { title: 'dyn', customCssClasses: ['a'] }, layouts: parent ? layoutIds.map((layoutId) => ({ layoutId, parentSectionId: parent.id, xOffset: added.x, yOffset: added.y, width: 2, height: 2 })) : [] }
        : added.kind === 'category'
          ? { id, kind: 'category', name: `Cat ${added.y}`, yOffset: added.y, xOffset: added.x, collapsed: added.collapsed }
          : { id, kind: 'empty', yOffset: added.y, xOffset: added.x };
    content.sections.push(section);
  }
  const sectionIds = content.sections.map((s) => s.id);
  // Positions naming sections no longer in the payload are dropped (the stored ones then go with their section).
  for (const item of content.items) item.layouts = item.layouts.filter((p) => sectionIds.includes(p.sectionId));
  for (const section of content.sections) {
    if (section.kind === 'dynamic') section.layouts = section.layouts.filter((p) => sectionIds.includes(p.parentSectionId) && p.parentSectionId !== section.id);
  }
  for (const edited of edit.editItems) {
    const item = pick(content.items, edited.index);
    if (!item) continue;
    if (edited.options !== null) item.options = edited.options;
    if (edited.advanced !== null) item.advancedOptions = edited.advanced as BoardItemInput['advancedOptions'];
    if (edited.bind !== null) item.integrationIds = [...new Set(edited.bind.map((i) => integrations[i]))];
    if (edited.move !== null) {
      const [layout, section, r] = edited.move;
      const layoutId = pick(layoutIds, layout)!;
      const sectionId = pick(sectionIds, section)!;
      item.layouts = [...item.layouts.filter((p) => p.layoutId !== layoutId), { layoutId, sectionId, ...r }];
    }
  }
  for (const added of edit.addItems) {
    const sectionId = pick(sectionIds, added.section)!;
    const layouts = [...new Map(added.layouts.map(([layout, r]) => [pick(layoutIds, layout)!, r])).entries()].map(([layoutId, r]) => ({ layoutId, sectionId, ...r }));
    content.items.push({ id: unique('item'), kind: 'clock', options: added.options, integrationIds: [...new Set(added.bind.map((i) => integrations[i]))], advancedOptions: {}, layouts });
  }
  return content;
}

const serialized = (state: BoardState) => JSON.stringify(toBoardDocument(state));

/**
 * CONC-7: a granular change (planContentChange, which looks only at the rows of the elements it names) plans the
 * same writes as a whole-board save of the board with that one element replaced, added or removed.
 */
function expectGranularPlansLikeSave(before: BoardState, content: BoardContent): void {
  const document = toBoardDocument(before);
  const stored = { sections: document.sections, items: document.items };
  const replacing = <T extends { id: string }>(list: T[], element: T) => (list.some((e) => e.id === element.id) ? list.map((e) => (e.id === element.id ? element : e)) : [...list, element]);
  const writesOfSave = (whole: BoardContent) => {
    try {
      validateContent(whole);
    } catch {
      return undefined; // a change the route refuses before planning
    }
    return planContent(before, whole).writes;
  };
  const item = content.items[content.items.length - 1];
  if (item) {
    const whole = writesOfSave({ sections: stored.sections, items: replacing(stored.items, item) });
    if (whole) expect(planContentChange(before, { items: [item] }).writes).toEqual(whole);
  }
  const section = content.sections[content.sections.length - 1];
  if (section) {
    const whole = writesOfSave({ sections: replacing(stored.sections, section), items: stored.items });
    if (whole) expect(planContentChange(before, { sections: [section] }).writes).toEqual(whole);
  }
  const removed = stored.items[0];
  if (removed) {
    expect(planContentChange(before, { removedItemIds: [removed.id] }).writes).toEqual(planContent(before, { sections: stored.sections, items: stored.items.slice(1) }).writes);
  }
}

it('byBytes orders strings as their UTF-8 bytes (COLLATE "C")', () => {
  const text = fc.string({ unit: fc.constantFrom('a', 'b', 'é', '\uffff', '\ue000', '😀', '\ud7ff', '𝄞', 'Z'), maxLength: 4 });
  fc.assert(
    fc.property(text, text, (a, b) => {
      expect(Math.sign(byBytes(a, b))).toBe(Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b))));
    }),
    { numRuns: 2000 },
  );
});

it('after random saves and layout changes, the computed board is the stored board, byte for byte', async () => {
  const board = await createBoard(server, { columns: 6 });
  const integrations = [await createIntegration(server), await createIntegration(server), await createIntegration(server)];
  await server.db('layouts').insert({ id: unique('wide'), boardId: board.boardId, name: 'Wide', columnCount: 12, breakpoint: 900 });
  // An item of a kind this build does not know: hidden, never touched (PUT-13).
  await server.db('items').insert({ id: unique('ghost'), boardId: board.boardId, kind: 'retiredWidget', options: '{}', advancedOptions: '{}' });
  const principal = { userId: 'nobody', username: 'nobody', groupIds: [], permissions: new Set<never>(), authMethod: 'apiKey' as const, apiKeyId: null };
  const load = async () => (await loadBoardState(server.db, board.boardId, principal))!;

  // Every other round starts from the board the last round computed, as a write starts from the state cache: its
  // item groups (model.ts) were derived from its predecessor's, so derived groups are derived again.
  let computed: BoardState | null = null;
  let round = 0;
  await fc.assert(
    fc.asyncProperty(fc.oneof({ arbitrary: contentEdit.map((edit) => ({ edit })), weight: 4 }, { arbitrary: layoutEdit.map((layouts) => ({ layouts })), weight: 1 }), async (step) => {
      const before = computed ?? (await load());
      computed = null;
      let expected: BoardState;
      if ('edit' in step) {
        const content = editContent(before, step.edit, integrations);
        try {
          validateContent(content);
        } catch {
          return; // a payload the save refuses before planning
        }
        expectGranularPlansLikeSave(before, content);
        const plan = planContent(before, content);
        expected = stateAfterContentWrites(before, plan.writes);
        await server.db.transaction((trx) => applyContentWrites(trx, board.boardId, plan.writes));
      } else {
        const layouts = before.layouts.map((l) => ({ id: l.id, name: l.name, columnCount: l.columnCount, breakpoint: l.breakpoint }));
        const { add, change, remove } = step.layouts;
        if (change) layouts[change.index % layouts.length].columnCount = change.columns;
        if (remove !== null && layouts.length > 1) layouts.splice(remove % layouts.length, 1);
        if (add) layouts.push({ id: 'new', name: `L${add.columns}`, columnCount: add.columns, breakpoint: add.breakpoint });
        const plan = planLayoutChange(before, layouts);
        expected = stateAfterLayoutPlan(before, plan);
        await server.db.transaction((trx) => applyLayoutPlan(trx, board.boardId, plan));
      }
      const stored = await load();
      expect(serialized(expected)).toBe(serialized(stored));
      // The serialized answer (item bytes reused from earlier rounds) is the same bytes.
      expect(Buffer.concat(serializeState(expected).parts).toString()).toBe(serialized(stored));
      computed = round++ % 2 === 0 ? expected : null;
    }),
    { numRuns: 60, seed: 20261123 },
  );
});
