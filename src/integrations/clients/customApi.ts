/**
 * CAPI-7: one request to a custom API as its definition says (URL absolute, or a path on the integration's URL;
 * method; body; headers with the integration's secrets filled in), its answer read as JSON within the size cap and
 * picked into the widget's data (CAPI-6). Messages name the origin only, never a path, header or secret.
 */
import { fillPlaceholders, integrationRequestUrl, type CustomApiDefinition } from '../../customApis/definition';
import { pickCustomApiData, type CustomApiData } from '../../customApis/pick';
import { shownOrigin } from '../../outbound/fetch';
import { ServiceError, type ClientContext, type IntegrationTarget } from './types';

export type CustomApiRequestDefinition = Omit<CustomApiDefinition, 'createdAt' | 'updatedAt'>;

export async function fetchCustomApi(ctx: ClientContext, definition: CustomApiRequestDefinition, target: IntegrationTarget | null): Promise<CustomApiData> {
  let url: string | null;
  if (definition.integrationId === null) url = definition.url;
  else {
    if (!target) throw new ServiceError('failed', `Custom API "${definition.name}" reads an integration that is not bound to this item`);
    url = integrationRequestUrl(target.url, definition.url);
    if (!url) throw new ServiceError('failed', `Custom API "${definition.name}": its path does not stay on the integration's URL`);
  }
  const headers: Record<string, string> = { accept: 'application/json' };
  for (const header of definition.headers) {
    const filled = fillPlaceholders(header.value, target?.secrets ?? {});
    if ('missing' in filled) throw new ServiceError('failed', `Custom API "${definition.name}": the integration has no ${filled.missing} secret set`);
    headers[header.name] = filled.value;
  }
  if (definition.body !== null && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  const origin = shownOrigin(new URL(url));
  const answer = await ctx.fetch(url, {
    method: definition.method,
    headers,
    ...(definition.body !== null ? { body: definition.body } : {}),
    timeoutMs: ctx.timeoutMs,
    maxBytes: ctx.maxBytes,
  });
  if (answer.status === 401 || answer.status === 403) throw new ServiceError('unauthorized', `${origin}: refused (HTTP ${answer.status})`);
  if (answer.status < 200 || answer.status >= 300) throw new ServiceError('failed', `${origin}: answered HTTP ${answer.status}`);
  let json: unknown;
  try {
    json = JSON.parse(answer.text);
  } catch {
    throw new ServiceError('bad-answer', `${origin}: the answer is not JSON`);
  }
  return pickCustomApiData(definition, json);
}
