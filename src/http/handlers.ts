import { appHandlers } from '../apps/handlers';
import { boardDocumentHandlers } from '../boards/document/handlers';
import { boardManagementHandlers } from '../boards/management/handlers';
import { identityHandlers } from '../identity/handlers';
import { integrationHandlers } from '../integrations/handlers';
import { settingsHandlers } from '../settings/handlers';
import { systemHandlers } from '../system/handlers';
import type { HandlerMap } from './operation';

/** operationId -> handler: the table of contents of the API. tsc fails when an operation has no handler. */
export const handlers: HandlerMap = {
  ...systemHandlers,
  ...identityHandlers,

  ...boardDocumentHandlers,

  ...boardManagementHandlers,

  ...settingsHandlers,

  ...appHandlers,

  ...integrationHandlers,
};
