import { identityHandlers } from '../identity/handlers';
import { systemHandlers } from '../system/handlers';
import type { HandlerMap } from './operation';

/** operationId -> handler: the table of contents of the API. tsc fails when an operation has no handler. */
export const handlers: HandlerMap = {
  ...systemHandlers,
  ...identityHandlers,
};
