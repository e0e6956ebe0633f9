import type { Document } from 'openapi-backend';
import { dereferenceSync } from 'dereference-json-schema';

/** The bundled document from generated/ (npm run generate): routing, validation and GET /api/openapi.json. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const openApiDocument: Document = require('../../generated/openapi.json');

/** The bundled document with every $ref resolved: what routing, validation and the MCP tools' input schemas use. */
export function dereferencedDocument(): Document {
  return dereferenceSync(structuredClone(openApiDocument)) as Document;
}
