import type { HandlerMap } from '../http/operation';

/** Integration routes. */
export const integrationHandlers = {} satisfies Partial<HandlerMap>;
