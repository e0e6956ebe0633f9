/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.(t|j|cj)s$': ['@swc/jest'],
  },
  // ESM-only (or ESM-importing) dependencies must be compiled to CJS for Jest on Node 20 (superjson and its two
  // dependencies only for the tRPC client tests). openid-client 6 and its oauth4webapi and jose, and
  // @kubernetes/client-node, are ES modules that Node itself loads with require(esm); Jest's module system does not, so
  // they are compiled here too (OIDC-2, DISC-13).
  transformIgnorePatterns: ['^(?!.*/node_modules/(@apidevtools/json-schema-ref-parser|@electric-sql/pglite|superjson|copy-anything|is-what|@kubernetes/client-node|openid-client|oauth4webapi|jose)/).*/node_modules/'],
  maxWorkers: 2,
  // The contract run's Prism pool (test/support/contractHub): started once, not once per test server.
  globalSetup: '<rootDir>/test/support/contractHub/globalSetup.ts',
  globalTeardown: '<rootDir>/test/support/contractHub/globalTeardown.ts',
  testTimeout: 60_000,
};
