/**
 * Board limits: what PUT /api/boards/{id} accepts, read from its request schema so that no route can drift from
 * it. Every route that grows a board checks the board as it would stand after the write against them, so that
 * `{sections, items}` taken from a GET always is a valid PUT body (PUT-2, LIMIT-1).
 */
import { badRequest } from '../../core/errors';
import { openApiDocument } from '../../core/openapiDocument';
import type { BoardDocument } from './types';

const schemas = openApiDocument.components!.schemas as Record<string, any>;
const saveRequest = schemas.SaveBoardRequest;

export const boardLimits = {
  items: saveRequest.properties.items.maxItems as number,
  sections: saveRequest.properties.sections.maxItems as number,
  layouts: schemas.SaveBoardLayoutsRequest.properties.layouts.maxItems as number,
  /** UTF-8 bytes of the compact JSON of `{sections, items}` as the writer reads the board back. */
  contentBytes: saveRequest['x-max-content-bytes'] as number,
};

/**
 * The request body a PUT of the largest board needs: its content, plus the wrapper and `expectedVersion`, plus
 * one byte per section for `collapsed` (the caller's own state, `false` being one byte longer than `true`).
 */
export const largestBoardBodyBytes = boardLimits.contentBytes + 64 * 1024;

export interface BoardMeasures {
  items: number;
  sections: number;
  layouts: number;
  contentBytes: number;
}

export const contentBytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

export function measureBoard(document: Pick<BoardDocument, 'layouts' | 'sections' | 'items'>): BoardMeasures {
  return {
    items: document.items.length,
    sections: document.sections.length,
    layouts: document.layouts.length,
    contentBytes: contentBytesOf({ sections: document.sections, items: document.items }),
  };
}

const messages: Record<keyof BoardMeasures, (limit: number) => string> = {
  items: (limit) => `A board holds at most ${limit} items`,
  sections: (limit) => `A board holds at most ${limit} sections`,
  layouts: (limit) => `A board holds at most ${limit} layouts`,
  contentBytes: (limit) => `A board's sections and items take at most ${limit} bytes as JSON`,
};

/**
 * 400 when the board after a write is past a limit and further past it than before (`before` is only measured
 * then; omitted for a new board). A board that was already past a limit (written before the limits existed) can
 * still be changed and shrunk, just not grown in that measure.
 */
export function assertWithinBoardLimits(after: BoardMeasures, before?: () => BoardMeasures): void {
  let previous: BoardMeasures | undefined;
  for (const measure of Object.keys(messages) as (keyof BoardMeasures)[]) {
    const limit = boardLimits[measure];
    if (after[measure] <= limit) continue;
    previous ??= before?.();
    if (previous && after[measure] <= previous[measure]) continue;
    throw badRequest(messages[measure](limit), { limit, actual: after[measure] });
  }
}
