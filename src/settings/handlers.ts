import type { HandlerMap } from '../http/operation';

/** Server-wide board settings. */
export const settingsHandlers = {} satisfies Partial<HandlerMap>;
