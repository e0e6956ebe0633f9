import type { HandlerMap } from '../http/operation';

/** App routes. */
export const appHandlers = {} satisfies Partial<HandlerMap>;
