import type { Document } from 'openapi-backend';
import { dereferenceSync } from 'dereference-json-schema';

/** The bundled document from generated/ (npm run generate): routing, validation and GET /api/openapi.json. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const openApiDocument: Document = require('../../generated/openapi.json');

/**
 * The bundled document with every $ref resolved: what routing, validation and the MCP tools' input schemas use. Each
 * call gives a copy of its own (the request validator changes its copy): dereferenceSync deep-copies what it is given
 * and caches the result by that object, so it gets a new outer object each time instead of a structuredClone, which
 * copied the whole document a second time (about 10 ms of every start).
 */
export function dereferencedDocument(): Document {
  return dereferenceSync({ ...openApiDocument }) as Document;
}
