import type { Knex } from 'knex';
import { badRequest, conflict, notFound } from '../../core/errors';
import { BoardState, readableItems, sectionDocumentsOf } from './model';
import { BoardWrite, changeBoardContent, DocumentResult } from './save';
import type { BoardSection, BoardSectionInput } from './types';
import { validateContent } from './validate';

type SectionChange = BoardWrite;

function assertSectionOnBoard(sections: readonly BoardSection[], sectionId: string): void {
  if (!sections.some((section) => section.id === sectionId)) throw notFound('Section not found');
}

/**
 * The checks a PUT of the board's sections as they would stand after the change makes of them (sections are few;
 * items are not looked at: their positions name sections that stay).
 */
function validateSectionsAfter(sections: BoardSectionInput[]): void {
  validateContent({ sections, items: [] });
}

/** SECT-1: the 409 of a section id already on the board. */
export const sectionExists = () => conflict('Section already exists on this board');

/** POST /api/boards/{id}/sections (SECT-1): 409 `Section already exists on this board` for an id already on the board. */
export async function addBoardSection(db: Knex, change: SectionChange & { section: BoardSectionInput }): Promise<DocumentResult> {
  return changeBoardContent(db, change, (state) => {
    const sections = sectionDocumentsOf(state);
    if (sections.some((section) => section.id === change.section.id)) throw sectionExists();
    validateSectionsAfter([...sections, change.section]);
    return { sections: [change.section] };
  });
}

/** PATCH /api/boards/{id}/sections/{sectionId} (SECT-2): the body is the section itself; its id must match the path. */
export async function updateBoardSection(db: Knex, change: SectionChange & { sectionId: string; section: BoardSectionInput }): Promise<DocumentResult> {
  if (change.section.id !== change.sectionId) throw badRequest('Section id does not match the path');
  return changeBoardContent(db, change, (state) => {
    const sections = sectionDocumentsOf(state);
    assertSectionOnBoard(sections, change.sectionId);
    validateSectionsAfter(sections.map((section) => (section.id === change.sectionId ? change.section : section)));
    return { sections: [change.section] };
  });
}

/** Whether any item the document shows has a position in the section. */
function holdsItems(state: BoardState, sectionId: string): boolean {
  const placed = new Set(state.itemLayouts.filter((p) => p.sectionId === sectionId).map((p) => p.itemId));
  return placed.size > 0 && readableItems(state).some((item) => placed.has(item.id));
}

/** DELETE /api/boards/{id}/sections/{sectionId} (SECT-3): refused while items or dynamic sections are placed in it. */
export async function deleteBoardSection(db: Knex, change: SectionChange & { sectionId: string }): Promise<DocumentResult> {
  return changeBoardContent(db, change, (state) => {
    const sections = sectionDocumentsOf(state);
    assertSectionOnBoard(sections, change.sectionId);
    const holdsSections = sections.some((section) => section.kind === 'dynamic' && section.layouts.some((p) => p.parentSectionId === change.sectionId));
    if (holdsItems(state, change.sectionId) || holdsSections) throw badRequest('Section still holds items or dynamic sections');
    return { removedSectionIds: [change.sectionId] };
  });
}
