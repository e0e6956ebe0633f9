import type { HandlerMap } from '../../http/operation';

/** Board management routes (list, create, duplicate, rename, visibility, settings, home, delete, grants). */
export const boardManagementHandlers = {} satisfies Partial<HandlerMap>;
