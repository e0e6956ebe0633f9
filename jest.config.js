/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.(t|j|cj)s$': ['@swc/jest'],
  },
  // Two ESM-only (or ESM-importing) dependencies must be compiled to CJS for Jest on Node 20.
  transformIgnorePatterns: ['^(?!.*/node_modules/(@apidevtools/json-schema-ref-parser|@electric-sql/pglite)/).*/node_modules/'],
  maxWorkers: 2,
  testTimeout: 60_000,
};
