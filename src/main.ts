import { ConfigError, loadConfig } from './config/config';
import { createLogger, startServer } from './server';
import { serviceVersion } from './system/version';

/** Signals within this time of the first are the same stop delivered twice (see shutdown). */
const repeatedSignalMs = 500;

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Configuration error: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger(config);
  logger.info(
    { version: serviceVersion, database: config.databaseUrl ? 'postgresql' : `pglite:${config.dataDir}` },
    'starting tessera',
  );
  const server = await startServer(config, { logger });
  if (server.bootstrap.generatedApiKey) {
    // Printed once, on the first start with an empty database; only its hash is stored.
    process.stdout.write(
      `\nBootstrap admin API key (shown once, store it now):\n  ${server.bootstrap.generatedApiKey}\n` +
        `Use it as:  curl -H 'ApiKey: ${server.bootstrap.generatedApiKey}' ${server.url}/api/users\n` +
        // PASS-1: the page needs a password; the server holds the embedded database, so it is set through the API.
        `To sign in on the page as admin, give it a password while this runs:\n` +
        `  TESSERA_URL=${server.url} TESSERA_API_KEY=${server.bootstrap.generatedApiKey} npx tessera users set-password admin --password '<password>' --remote\n\n`,
    );
  } else if (server.bootstrap.created) {
    logger.info('bootstrap admin created with the key from BOOTSTRAP_ADMIN_API_KEY');
  }
  if (server.bootstrap.passwordSet) logger.info('user admin had no password: set from BOOTSTRAP_ADMIN_PASSWORD (NAV-7)');
  // Since the process started: module loading, the database and the app.
  logger.info({ url: server.url, docs: `${server.url}/api/docs`, startupMs: Math.round(performance.now()) }, 'listening');

  let firstSignalAt: number | null = null;
  const shutdown = (signal: string) => {
    if (firstSignalAt !== null) {
      // RUN-2: Ctrl-C signals the whole process group, and npm passes the signal it got on as well, so the same stop
      // arrives twice at once; only a signal sent later (a second Ctrl-C) means "exit now".
      if (performance.now() - firstSignalAt < repeatedSignalMs) return;
      logger.warn({ signal }, 'second signal, exiting now');
      process.exit(1);
    }
    firstSignalAt = performance.now();
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    server.stop().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (error) => {
        logger.error({ err: error }, 'error during shutdown');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error) => {
  console.error(`Tessera failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
