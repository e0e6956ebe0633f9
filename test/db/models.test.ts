import { readFileSync } from 'node:fs';
import path from 'node:path';
import { col } from '../../src/db/models/BaseModel';
import { BaseModel, Board, models, User } from '../../src/db/models';
import { startTestServer, type TestServer } from '../support/server';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.stop());

const camel = (column: string) => column.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

describe('the data model (src/db/models)', () => {
  it('MODEL-1: every table of the migrated database has exactly one model, and every model a table', async () => {
    const { rows } = await server.db.raw(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
       AND table_name NOT LIKE 'knex_%' ORDER BY table_name`,
    );
    const tables = rows.map((row: { table_name: string }) => row.table_name);
    expect(models.map((model) => model.tableName).sort()).toEqual(tables);
  });

  it('MODEL-2: each model\'s row schema names exactly the columns of its table (camelCase), and its id columns are among them', async () => {
    const { rows } = await server.db.raw(
      `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY table_name, column_name`,
    );
    for (const model of models) {
      const columns = rows.filter((row: { table_name: string }) => row.table_name === model.tableName).map((row: { column_name: string }) => camel(row.column_name));
      const properties = Object.keys(model.jsonSchema.properties ?? {});
      expect({ table: model.tableName, properties: [...properties].sort() }).toEqual({ table: model.tableName, properties: [...columns].sort() });
      const ids = Array.isArray(model.idColumn) ? model.idColumn : [model.idColumn];
      for (const id of ids) expect(properties).toContain(id);
      for (const required of (model.jsonSchema.required as string[]) ?? []) expect(properties).toContain(required);
    }
  });

  it('MODEL-1: every relation mapping resolves (tables and columns of both ends exist)', async () => {
    for (const model of models) {
      for (const relation of Object.values(model.getRelations())) {
        // a join on the relation makes PostgreSQL check both ends' tables and columns
        await expect((model as typeof BaseModel).query(server.db).joinRelated(relation.name).limit(1)).resolves.toEqual(expect.any(Array));
      }
    }
  });

  it('MODEL-1: a board fetched through its relations holds what GET /api/boards/{id} shows', async () => {
    const created = await server.call('POST', '/api/boards', { body: { name: `models-${Date.now()}`, columnCount: 12, isPublic: false } });
    expect(created.status).toBe(201);
    const boardId = created.body.boardId;
    const document = await server.call('GET', `/api/boards/${boardId}`);
    const sectionId = document.body.sections[0].id;
    const layoutId = document.body.layouts[0].id;
    const put = await server.call('PUT', `/api/boards/${boardId}`, {
      body: {
        sections: document.body.sections,
        items: [{ id: `models-item-${Date.now()}`, kind: 'clock', options: {}, advancedOptions: { customCssClasses: [] }, integrationIds: [], layouts: [{ layoutId, sectionId, xOffset: 0, yOffset: 0, width: 1, height: 1 }] }],
      },
    });
    expect(put.status).toBe(200);
    const board = await Board.query(server.db).findById(boardId).withGraphFetched('[creator, layouts, sections, items.[positions, integrations]]');
    const graph = board as unknown as { name: string; creator: User; layouts: unknown[]; sections: unknown[]; items: { id: string; positions: { layoutId: string }[] }[] };
    expect(graph.name).toBe(put.body.name);
    expect(graph.creator.username).toBe('admin');
    expect(graph.layouts).toHaveLength(put.body.layouts.length);
    expect(graph.sections).toHaveLength(put.body.sections.length);
    expect(graph.items.map((item) => item.id)).toEqual(put.body.items.map((item: { id: string }) => item.id));
    expect(graph.items[0].positions.map((p) => p.layoutId)).toEqual([layoutId]);
  });

  it('MODEL-1: a user fetched with its relations shows its groups and keys', async () => {
    const admin = await User.query(server.db).where('username', 'admin').first().withGraphFetched('[groups, apiKeys]');
    expect((admin as unknown as { apiKeys: unknown[] }).apiKeys.length).toBeGreaterThan(0);
    expect((admin as unknown as { groups: { name: string }[] }).groups.map((group) => group.name)).toContain('admins');
  });
});

/**
 * MODEL-2: where a model's row schema and the contract describe the same value, their bounds are equal (minimum,
 * maximum, minLength, maxLength, enum). The contract checks every write before it reaches a store, so the model's
 * bounds restate it; this keeps the two in step. Patterns and formats stay the contract's alone (a row schema
 * states what a column may hold, not how a request spells it).
 */
describe('MODEL-2: model bounds in step with the contract', () => {
  const contract = JSON.parse(readFileSync(path.resolve(__dirname, '../../generated/openapi.json'), 'utf8'));
  const schemas: Record<string, Record<string, unknown>> = contract.components.schemas;
  const deref = (schema: Record<string, unknown>): Record<string, unknown> =>
    typeof schema.$ref === 'string' ? deref(schemas[schema.$ref.split('/').pop()!]) : schema;
  /** `Schema.property` of the contract, its `$ref` and a lone `allOf` followed. */
  const property = (pointer: string) => {
    const [name, prop] = pointer.split('.');
    const found = deref((schemas[name].properties as Record<string, Record<string, unknown>>)[prop]);
    return Array.isArray(found.allOf) && found.allOf.length === 1 ? deref(found.allOf[0]) : found;
  };
  const boundKeywords = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength', 'enum'] as const;
  const bounds = (schema: Record<string, unknown>) =>
    Object.fromEntries(boundKeywords.filter((keyword) => keyword in schema).map((keyword) => [keyword, keyword === 'enum' ? [...(schema.enum as unknown[])].sort() : schema[keyword]]));
  const modelProperty = (model: typeof BaseModel, name: string) => (model.jsonSchema.properties as Record<string, Record<string, unknown>>)[name];

  /** `Model.property` -> the contract's schema of the same value. */
  const sections = Object.keys(schemas.BoardSection.discriminator ? (schemas.BoardSection.discriminator as { mapping: object }).mapping : {});
  const inStep: Record<string, () => Record<string, unknown>> = {
    'WebhookDelivery.status': () => property('WebhookDelivery.status'),
    'Board.name': () => property('BoardSummary.name'),
    'Board.opacity': () => property('BoardSettings.opacity'),
    'Board.backgroundImageAttachment': () => property('BoardSettings.backgroundImageAttachment'),
    'Board.backgroundImageRepeat': () => property('BoardSettings.backgroundImageRepeat'),
    'Board.backgroundImageSize': () => property('BoardSettings.backgroundImageSize'),
    'Board.itemRadius': () => property('BoardSettings.itemRadius'),
    'Board.colorScheme': () => property('BoardSettings.colorScheme'),
    'Layout.name': () => property('BreakpointLayout.name'),
    'Layout.columnCount': () => property('BreakpointLayout.columnCount'),
    'Layout.breakpoint': () => property('BreakpointLayout.breakpoint'),
    'Section.kind': () => ({ enum: sections }),
    'Section.xOffset': () => property('EmptySection.xOffset'),
    'Section.yOffset': () => property('EmptySection.yOffset'),
    'ItemLayout.xOffset': () => property('ItemPosition.xOffset'),
    'ItemLayout.yOffset': () => property('ItemPosition.yOffset'),
    'ItemLayout.width': () => property('ItemPosition.width'),
    'ItemLayout.height': () => property('ItemPosition.height'),
    'SectionLayout.xOffset': () => property('DynamicSectionPosition.xOffset'),
    'SectionLayout.yOffset': () => property('DynamicSectionPosition.yOffset'),
    'SectionLayout.width': () => property('DynamicSectionPosition.width'),
    'SectionLayout.height': () => property('DynamicSectionPosition.height'),
    'BoardHistoryEntry.revision': () => property('HistoryEntry.revision'),
    'BoardUserPermission.permission': () => schemas.BoardPermissionLevel,
    'BoardGroupPermission.permission': () => schemas.BoardPermissionLevel,
    'AppUserPermission.permission': () => schemas.AppPermissionLevel,
    'AppGroupPermission.permission': () => schemas.AppPermissionLevel,
    'IntegrationUserPermission.permission': () => schemas.IntegrationPermissionLevel,
    'IntegrationGroupPermission.permission': () => schemas.IntegrationPermissionLevel,
    'AppReachability.state': () => property('AppStatus.state'),
    'AuditEntry.outcome': () => property('AuditEntry.outcome'),
    'CustomApiDefinition.method': () => property('CustomApi.method'),
  };
  /** Bounded model properties the contract does not describe. */
  const internal: Record<string, string> = {
    'LoginFailure.failures': 'the login throttle\'s counter (LOGIN-3) is never sent or received',
    'WidgetDataCache.status': 'a cache row\'s state (WDATA-6): null while its first fetch is claimed; answers carry ok or error only',
    'WebhookOutboxEntry.state': 'an outbox row\'s state (HOOK-12..14): pending, delivered or failed; never sent or received',
  };

  it.each(Object.keys(inStep))('%s has the contract\'s bounds', (name) => {
    const [modelName, prop] = name.split('.');
    const model = models.find((candidate) => candidate.name === modelName)!;
    expect(model).toBeDefined();
    const fromContract = bounds(inStep[name]());
    expect(Object.keys(fromContract)).not.toHaveLength(0);
    expect({ [name]: bounds(modelProperty(model, prop)) }).toEqual({ [name]: fromContract });
  });

  it('every bound of a model beyond its column type is compared above or named as internal', () => {
    const columnTypes = [col.int, col.id].map((schema) => JSON.stringify(schema));
    const bounded = models.flatMap((model) =>
      Object.entries(model.jsonSchema.properties as Record<string, Record<string, unknown>>)
        .filter(([, schema]) => !columnTypes.includes(JSON.stringify(schema)) && Object.keys(bounds(schema)).length > 0)
        .map(([prop]) => `${model.name}.${prop}`),
    );
    expect(bounded.filter((name) => !inStep[name] && !internal[name])).toEqual([]);
  });
});
