import type { Knex } from 'knex';
import { badRequest, conflict, notFound } from '../../core/errors';
import { BoardWrite, changeBoardContent, DocumentResult } from './save';
import type { BoardDocument, BoardSectionInput } from './types';

type SectionChange = BoardWrite;

function assertSectionOnBoard(document: BoardDocument, sectionId: string): void {
  if (!document.sections.some((section) => section.id === sectionId)) throw notFound('Section not found');
}

/** POST /api/boards/{id}/sections (SECT-1): 409 `Section already exists on this board` for an id already on the board. */
export async function addBoardSection(db: Knex, change: SectionChange & { section: BoardSectionInput }): Promise<DocumentResult> {
  return changeBoardContent(db, change, (document) => {
    if (document.sections.some((section) => section.id === change.section.id)) throw conflict('Section already exists on this board');
    return { sections: [...document.sections, change.section], items: document.items };
  });
}

/** PATCH /api/boards/{id}/sections/{sectionId} (SECT-2): the body is the section itself; its id must match the path. */
export async function updateBoardSection(db: Knex, change: SectionChange & { sectionId: string; section: BoardSectionInput }): Promise<DocumentResult> {
  if (change.section.id !== change.sectionId) throw badRequest('Section id does not match the path');
  return changeBoardContent(db, change, (document) => {
    assertSectionOnBoard(document, change.sectionId);
    return { sections: document.sections.map((section) => (section.id === change.sectionId ? change.section : section)), items: document.items };
  });
}

/** DELETE /api/boards/{id}/sections/{sectionId} (SECT-3): refused while items or dynamic sections are placed in it. */
export async function deleteBoardSection(db: Knex, change: SectionChange & { sectionId: string }): Promise<DocumentResult> {
  return changeBoardContent(db, change, (document) => {
    assertSectionOnBoard(document, change.sectionId);
    const holdsItems = document.items.some((item) => item.layouts.some((p) => p.sectionId === change.sectionId));
    const holdsSections = document.sections.some(
      (section) => section.kind === 'dynamic' && section.layouts.some((p) => p.parentSectionId === change.sectionId),
    );
    if (holdsItems || holdsSections) throw badRequest('Section still holds items or dynamic sections');
    return { sections: document.sections.filter((section) => section.id !== change.sectionId), items: document.items };
  });
}
