import { appHandlers } from './apps/handlers';
import { boardDocumentHandlers } from './boards/document/handlers';
import { boardHistoryHandlers } from './boards/history/handlers';
import { boardFileHandlers } from './boards/files/handlers';
import { boardFleetHandlers } from './boards/fleet/handlers';
import { boardEventHandlers } from './boards/events/handlers';
import type { BoardEventHub } from './boards/events/hub';
import { boardManagementHandlers } from './boards/management/handlers';
import { identityHandlers } from './identity/handlers';
import { oidcHandlers } from './identity/oidc/handlers';
import { integrationHandlers } from './integrations/handlers';
import { customApiHandlers } from './customApis/handlers';
import { settingsHandlers } from './settings/handlers';
import { systemHandlers } from './system/handlers';
import { trpcHandlers } from './trpc/handlers';
import { mcpHandlers } from './mcp/handlers';
import { pageHandlers } from './pages/handlers';
import { observabilityHandlers } from './observability/handlers';
import type { BoardDocumentCache } from './boards/document/cache';
import type { BoardStateCache } from './boards/document/stateCache';
import type { HandlerMap } from './core/operation';
import type { SecretCipher } from './integrations/secrets/cipher';
import { widgetDataHandlers } from './widgets/data/handlers';
import { webhookHandlers } from './webhooks/handlers';
import type { WidgetDataDeps } from './widgets/data/service';

/** What the capabilities' handler factories receive: the instance's own state, created once per app. */
export interface HandlerDeps {
  boardDocuments: BoardDocumentCache;
  boardStates: BoardStateCache;
  boardEvents: BoardEventHub;
  /** SECRET-2: the cipher of the integration secrets, under this instance's key. */
  secrets: SecretCipher;
  /** WDATA-*: the widget-data service's cipher, bounds and this instance's upstream limits. */
  widgetData: WidgetDataDeps;
}

const boardCaches = (deps: HandlerDeps) => ({ documents: deps.boardDocuments, states: deps.boardStates });

/** operationId -> handler: the table of contents of the API. tsc fails when an operation has no handler. */
export const createHandlers = (deps: HandlerDeps): HandlerMap => ({
  ...systemHandlers,
  ...identityHandlers,
  ...oidcHandlers,

  ...boardDocumentHandlers(deps),
  ...boardHistoryHandlers(deps),
  ...boardEventHandlers({ events: deps.boardEvents }),
  ...boardFileHandlers({ caches: boardCaches(deps) }),
  ...boardFleetHandlers({ caches: boardCaches(deps) }),

  ...boardManagementHandlers,

  ...settingsHandlers,

  ...appHandlers,

  ...customApiHandlers,
  ...integrationHandlers({ secrets: deps.secrets }),
  ...widgetDataHandlers(deps.widgetData),

  ...trpcHandlers,
  ...mcpHandlers,
  ...pageHandlers({ caches: boardCaches(deps) }),

  ...observabilityHandlers,
  ...webhookHandlers({ secrets: deps.secrets }),
});
