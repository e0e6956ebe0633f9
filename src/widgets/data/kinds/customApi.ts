/**
 * CAPI-8: the customApi widget: the definition its `definitionId` option names (loaded by `resolve`), fetched and
 * picked by the custom API client (CAPI-7). A definition with an absolute URL is a source of its own; one on an
 * integration reads that integration only when it is bound to the item (the binding rule: `reads`), with the secrets
 * the service decrypted. A missing option or definition is one error result, never a 5xx.
 */
import type { CustomApiDefinition } from '../../../customApis/definition';
import type { CustomApiData } from '../../../customApis/pick';
import { findCustomApi } from '../../../customApis/store';
import { fetchCustomApi, type CustomApiRequestDefinition } from '../../../integrations/clients/customApi';
import { integrationKinds } from '../../../integrations/kinds';
import { ServiceError } from '../../../integrations/clients/types';
import type { LiveKind } from '../types';

type Resolved = { definition: CustomApiRequestDefinition } | { problem: string };

const definitionOf = (query: Record<string, unknown>): CustomApiRequestDefinition | null => (query.definition as CustomApiRequestDefinition | undefined) ?? null;

export const customApiKind: LiveKind<CustomApiData, Resolved> = {
  widgetKind: 'customApi',
  ttlMs: 30_000,
  // Any integration may carry a definition's URL and secrets; `reads` keeps only the one the definition names.
  integrationKinds,
  async resolve(env, options) {
    const id = options.definitionId;
    if (typeof id !== 'string' || id === '') return { problem: 'No custom API chosen: set the definitionId option' };
    const found: CustomApiDefinition | undefined = await findCustomApi(env.db, id);
    if (!found) return { problem: `Custom API definition ${id} not found` };
    // The stored definition without its timestamps, but `updatedAt` keeps an edited definition out of the old cache.
    const { createdAt: _created, ...definition } = found;
    return { definition };
  },
  query(_options, resolved) {
    if (!resolved) return { problem: 'Custom API definitions are not loaded' };
    return 'problem' in resolved ? { problem: resolved.problem } : { definition: resolved.definition };
  },
  reads(integration, query) {
    return definitionOf(query)?.integrationId === integration.id;
  },
  sources(_options, resolved) {
    if (!resolved || 'problem' in resolved) return [{ key: 'customApi:unresolved', name: 'Custom API' }];
    if (resolved.definition.integrationId !== null) return [];
    return [{ key: `customApi:${resolved.definition.id}`, name: resolved.definition.name }];
  },
  async fromSource(ctx, _source, query) {
    const definition = definitionOf(query);
    if (!definition) throw new ServiceError('failed', typeof query.problem === 'string' ? query.problem : 'No custom API chosen');
    return fetchCustomApi(ctx, definition, null);
  },
  async fromIntegration(ctx, integration, query) {
    const definition = definitionOf(query);
    if (!definition || definition.integrationId !== integration.id) throw new ServiceError('failed', 'This integration is not the one the custom API definition reads');
    return fetchCustomApi(ctx, definition, integration.target);
  },
};
