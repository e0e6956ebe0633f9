import { RateLimitBucket } from '../../src/db/models';
import { TestServer } from './server';

/**
 * Runs `action` and counts the SQL statements the server sends meanwhile (knex 'query' event). The server must be
 * started with WEBHOOK_POLL_MS=0 (HOOK-12): a webhook delivery round runs now and then whatever the route, and its
 * queries would be counted with the route's.
 */
export async function countQueries(server: TestServer, action: () => Promise<unknown>): Promise<number> {
  let count = 0;
  // The rate limiter's lease of its bucket (RATE-2, PostgreSQL) also comes now and then, whatever the route.
  const listener = (query: { sql: string }) => {
    if (!query.sql.includes(RateLimitBucket.tableName)) count += 1;
  };
  server.db.on('query', listener);
  try {
    await action();
  } finally {
    server.db.removeListener('query', listener);
  }
  return count;
}
