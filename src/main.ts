import { ConfigError, loadConfig } from './config/config';
import { createLogger, startServer } from './server';
import { serviceVersion } from './system/version';

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
        `Use it as:  curl -H 'ApiKey: ${server.bootstrap.generatedApiKey}' ${server.url}/api/users\n\n`,
    );
  } else if (server.bootstrap.created) {
    logger.info('bootstrap admin created with the key from BOOTSTRAP_ADMIN_API_KEY');
  }
  logger.info({ url: server.url, docs: `${server.url}/api/docs` }, 'listening');

  let signals = 0;
  const shutdown = (signal: string) => {
    signals += 1;
    if (signals > 1) {
      logger.warn({ signal }, 'second signal, exiting now');
      process.exit(1);
    }
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
