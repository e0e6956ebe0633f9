/**
 * The data model at a glance (MODEL-1): one Objection model per table, each in src/db/models/<Name>.ts with its
 * `tableName`, `idColumn`, `relationMappings` and row `jsonSchema` (MODEL-2). Stores reach tables only through these
 * models (`Model.query(trx)`, or `Model.table(trx)` / `Model.tableName` for hot paths and set-based SQL); no file
 * outside src/db/models and src/db/migrations names a table as a string (MODEL-3, `npm run check`).
 *
 * Convention for new tables: add src/db/models/<Name>.ts with a class extending BaseModel (not objection's Model
 * directly: BaseModel carries the snake_case column mapping and the rules above), and export it here and in `models`.
 *
 *   boards ─┬─ layouts ── item_layouts, section_layouts        users ─┬─ group_members ── groups ── group_permissions
 *           ├─ sections ─ section_layouts, section_collapse_states     ├─ api_keys, sessions
 *           ├─ items ──┬─ item_layouts (positions)                     └─ board/app/integration_user_permissions
 *           │          ├─ integration_items ── integrations ─┬─ integration_secrets, custom_apis
 *           │          └─ app_placements ── apps ────────────┘ (integrations.app_id)
 *           ├─ board_user_permissions, board_group_permissions
 *           ├─ board_history, provisioned_boards (board_labels)  server_settings, login_failures, provisioning_sources
 *           └─ (apps) app_reachability                         audit_log, rate_limit_buckets, event_stream_leases
 *   users ── idempotency_keys (the stored first answers of requests with an Idempotency-Key)
 *   integrations ── widget_data_cache (the shared cache of live widget data)
 *   users ── mcp_proposals (writes MCP tools proposed, until applied, rejected or expired)
 *   api_keys ── mcp_sessions (what an MCP client declared on initialize; elicitation answers)
 *   webhooks ─┬─ webhook_outbox (events to deliver, written with the change they report)
 *             └─ webhook_deliveries (the log of delivery attempts)
 *   users ── oidc_identities (a provider's accounts by issuer and subject); oidc_sign_ins (sign-ins under way)
 */
import { ApiKey } from './ApiKey';
import { RateLimitBucket } from './RateLimitBucket';
import { ProvisioningSource } from './ProvisioningSource';
import { ProvisionedBoard } from './ProvisionedBoard';
import { EventStreamLease } from './EventStreamLease';
import { AuditEntry } from './AuditEntry';
import { AppReachability } from './AppReachability';
import { App } from './App';
import { AppGroupPermission } from './AppGroupPermission';
import { AppPlacement } from './AppPlacement';
import { AppUserPermission } from './AppUserPermission';
import { Board } from './Board';
import { BoardGroupPermission } from './BoardGroupPermission';
import { BoardHistoryEntry } from './BoardHistoryEntry';
import { BoardLabel } from './BoardLabel';
import { BoardUserPermission } from './BoardUserPermission';
import { CustomApiDefinition } from './CustomApiDefinition';
import { Group } from './Group';
import { GroupMember } from './GroupMember';
import { GroupPermission } from './GroupPermission';
import { IdempotencyKey } from './IdempotencyKey';
import { Integration } from './Integration';
import { IntegrationGroupPermission } from './IntegrationGroupPermission';
import { IntegrationItem } from './IntegrationItem';
import { IntegrationSecret } from './IntegrationSecret';
import { IntegrationUserPermission } from './IntegrationUserPermission';
import { Item } from './Item';
import { ItemLayout } from './ItemLayout';
import { Layout } from './Layout';
import { LoginFailure } from './LoginFailure';
import { McpProposal } from './McpProposal';
import { McpSession } from './McpSession';
import { OidcIdentity } from './OidcIdentity';
import { OidcSignIn } from './OidcSignIn';
import { Section } from './Section';
import { SectionCollapseState } from './SectionCollapseState';
import { SectionLayout } from './SectionLayout';
import { ServerSetting } from './ServerSetting';
import { WidgetDataCache } from './WidgetDataCache';
import { Session } from './Session';
import { User } from './User';
import { Webhook } from './Webhook';
import { WebhookDelivery } from './WebhookDelivery';
import { WebhookOutboxEntry } from './WebhookOutboxEntry';

export { BaseModel } from './BaseModel';
export {
  ApiKey,
  AppReachability,
  AuditEntry,
  EventStreamLease,
  ProvisionedBoard,
  ProvisioningSource,
  RateLimitBucket,
  App,
  AppGroupPermission,
  AppPlacement,
  AppUserPermission,
  Board,
  BoardGroupPermission,
  BoardHistoryEntry,
  BoardLabel,
  BoardUserPermission,
  CustomApiDefinition,
  Group,
  GroupMember,
  GroupPermission,
  IdempotencyKey,
  Integration,
  IntegrationGroupPermission,
  IntegrationItem,
  IntegrationSecret,
  IntegrationUserPermission,
  Item,
  ItemLayout,
  Layout,
  LoginFailure,
  McpProposal,
  McpSession,
  OidcIdentity,
  OidcSignIn,
  Section,
  SectionCollapseState,
  SectionLayout,
  ServerSetting,
  WidgetDataCache,
  Session,
  User,
  Webhook,
  WebhookDelivery,
  WebhookOutboxEntry,
};

/** Every model, one per table (the models test checks each against the migrated database). */
export const models = [
  ApiKey,
  AppReachability,
  AuditEntry,
  EventStreamLease,
  ProvisionedBoard,
  ProvisioningSource,
  RateLimitBucket,
  App,
  AppGroupPermission,
  AppPlacement,
  AppUserPermission,
  Board,
  BoardGroupPermission,
  BoardHistoryEntry,
  BoardLabel,
  BoardUserPermission,
  CustomApiDefinition,
  Group,
  GroupMember,
  GroupPermission,
  IdempotencyKey,
  Integration,
  IntegrationGroupPermission,
  IntegrationItem,
  IntegrationSecret,
  IntegrationUserPermission,
  Item,
  ItemLayout,
  Layout,
  LoginFailure,
  McpProposal,
  McpSession,
  OidcIdentity,
  OidcSignIn,
  Section,
  SectionCollapseState,
  SectionLayout,
  ServerSetting,
  WidgetDataCache,
  Session,
  User,
  Webhook,
  WebhookDelivery,
  WebhookOutboxEntry,
] as const;
