import type { Knex } from 'knex';
import { badRequest, conflict, notFound } from '../../core/errors';
import type { Principal } from '../../identity/principal';
import { readBoardDocument } from './read';
import { DocumentResult, saveBoardContent } from './save';
import type { BoardDocument, BoardSectionInput } from './types';

interface SectionChange {
  boardId: string;
  principal: Principal;
  ifMatch?: string;
}

async function saveSections(db: Knex, change: SectionChange, document: BoardDocument, sections: BoardSectionInput[]): Promise<DocumentResult> {
  return saveBoardContent(db, {
    boardId: change.boardId,
    principal: change.principal,
    content: { sections, items: document.items },
    expectedVersion: document.version,
    ifMatch: change.ifMatch,
  });
}

/** POST /api/boards/{id}/sections: 409 `Section already exists on this board` for an id already on the board. */
export async function addBoardSection(db: Knex, change: SectionChange & { section: BoardSectionInput }): Promise<DocumentResult> {
  const { document } = await readBoardDocument(db, change.boardId, change.principal, 'modify');
  if (document.sections.some((section) => section.id === change.section.id)) throw conflict('Section already exists on this board');
  return saveSections(db, change, document, [...document.sections, change.section]);
}

/** PATCH /api/boards/{id}/sections/{sectionId}: the body is the section itself; its id must match the path. */
export async function updateBoardSection(
  db: Knex,
  change: SectionChange & { sectionId: string; section: BoardSectionInput },
): Promise<DocumentResult> {
  if (change.section.id !== change.sectionId) throw badRequest('Section id does not match the path');
  const { document } = await readBoardDocument(db, change.boardId, change.principal, 'modify');
  if (!document.sections.some((section) => section.id === change.sectionId)) throw notFound('Section not found');
  return saveSections(
    db,
    change,
    document,
    document.sections.map((section) => (section.id === change.sectionId ? change.section : section)),
  );
}

/** DELETE /api/boards/{id}/sections/{sectionId}: refused while items or dynamic sections are placed in it. */
export async function deleteBoardSection(db: Knex, change: SectionChange & { sectionId: string }): Promise<DocumentResult> {
  const { document } = await readBoardDocument(db, change.boardId, change.principal, 'modify');
  if (!document.sections.some((section) => section.id === change.sectionId)) throw notFound('Section not found');
  const holdsItems = document.items.some((item) => item.layouts.some((p) => p.sectionId === change.sectionId));
  const holdsSections = document.sections.some(
    (section) => section.kind === 'dynamic' && section.layouts.some((p) => p.parentSectionId === change.sectionId),
  );
  if (holdsItems || holdsSections) throw badRequest('Section still holds items or dynamic sections');
  return saveSections(
    db,
    change,
    document,
    document.sections.filter((section) => section.id !== change.sectionId),
  );
}
