import type { Document } from 'openapi-backend';

/** The bundled document from generated/ (npm run generate): routing, validation and GET /api/openapi.json. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const openApiDocument: Document = require('../../generated/openapi.json');
