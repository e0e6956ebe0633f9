import type { HandlerMap } from '../../http/operation';

/** Board document routes (GET/PUT board, items, sections, layouts). */
export const boardDocumentHandlers = {} satisfies Partial<HandlerMap>;
