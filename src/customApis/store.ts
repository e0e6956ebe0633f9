/**
 * CAPI-1, CAPI-2: the custom API definitions' store. Every write is one transaction that checks, then writes; a
 * refused write changes nothing.
 */
import { badRequest, notFound } from '../core/errors';
import type { Db } from '../db/database';
import { newId } from '../db/ids';
import { CustomApiDefinition as Row, Integration } from '../db/models';
import { normalizeCustomApiInput, type CustomApiDefinition, type CustomApiInput } from './definition';

const notFoundMessage = 'Custom API not found';

function toDefinition(row: Row): CustomApiDefinition {
  const parse = <T>(value: unknown): T => (typeof value === 'string' ? JSON.parse(value) : value) as T;
  return {
    id: row.id,
    name: row.name,
    integrationId: row.integrationId,
    url: row.url,
    method: row.method,
    body: row.body,
    headers: parse(row.headers),
    fields: parse(row.fields),
    list: parse(row.list),
    createdAt: new Date(row.createdAt).toISOString(),
    updatedAt: new Date(row.updatedAt).toISOString(),
  };
}

const columnsOf = (input: ReturnType<typeof normalizeCustomApiInput>) => ({
  ...input,
  headers: JSON.stringify(input.headers),
  fields: JSON.stringify(input.fields),
  list: input.list === null ? null : JSON.stringify(input.list),
});

async function assertIntegrationExists(db: Db, integrationId: string | null): Promise<void> {
  if (integrationId === null) return;
  if (!(await Integration.query(db).findById(integrationId).select('id'))) {
    throw badRequest('Input validation failed', { issues: [{ instancePath: '/requestBody/integrationId', message: 'names no integration' }] });
  }
}

export async function listCustomApis(db: Db): Promise<CustomApiDefinition[]> {
  return (await Row.query(db).orderBy(['name', 'id'])).map(toDefinition);
}

/** One definition, or undefined (the widget answers a missing one as data, CAPI-8). */
export async function findCustomApi(db: Db, id: string): Promise<CustomApiDefinition | undefined> {
  const row = await Row.query(db).findById(id);
  return row ? toDefinition(row) : undefined;
}

export async function readCustomApi(db: Db, id: string): Promise<CustomApiDefinition> {
  const found = await findCustomApi(db, id);
  if (!found) throw notFound(notFoundMessage);
  return found;
}

export async function createCustomApi(db: Db, input: CustomApiInput): Promise<CustomApiDefinition> {
  const normalized = normalizeCustomApiInput(input);
  const id = newId();
  return db.transaction(async (trx) => {
    await assertIntegrationExists(trx, normalized.integrationId);
    await Row.query(trx).insert({ id, ...columnsOf(normalized) } as never);
    return readCustomApi(trx, id);
  });
}

/** PUT: 404 for an unknown id before the content is judged (CAPI-2's 400 is for a definition that exists). */
export async function replaceCustomApi(db: Db, id: string, input: CustomApiInput): Promise<CustomApiDefinition> {
  return db.transaction(async (trx) => {
    if (!(await Row.query(trx).findById(id).forUpdate().select('id'))) throw notFound(notFoundMessage);
    const normalized = normalizeCustomApiInput(input);
    await assertIntegrationExists(trx, normalized.integrationId);
    await Row.query(trx).findById(id).patch({ ...columnsOf(normalized), updatedAt: new Date().toISOString() } as never);
    return readCustomApi(trx, id);
  });
}

export async function deleteCustomApi(db: Db, id: string): Promise<void> {
  const deleted = await Row.query(db).deleteById(id);
  if (deleted === 0) throw notFound(notFoundMessage);
}
