/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.(t|j|cj)s$': ['@swc/jest'],
  },
  // ESM-only (or ESM-importing) dependencies must be compiled to CJS for Jest on Node 20 (superjson and its two
  // dependencies only for the tRPC client tests).
  transformIgnorePatterns: ['^(?!.*/node_modules/(@apidevtools/json-schema-ref-parser|@electric-sql/pglite|superjson|copy-anything|is-what)/).*/node_modules/'],
  maxWorkers: 2,
  testTimeout: 60_000,
};
