import { ConfigError, loadConfig } from './config.js';
import { startServer } from './server.js';

/** Time past SHUTDOWN_TIMEOUT_MS for closing the pools and the database once requests are cut off. */
const SHUTDOWN_GRACE_MS = 2_000;

/** `npm start`: configuration from the environment, a one-time key hint on first start, clean exit on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`docex: configuration error: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  let server;
  try {
    server = await startServer(config);
  } catch (err) {
    process.stderr.write(`docex: could not start: ${(err as Error).message}\n`);
    process.exit(1);
  }
  if (server.firstKey) {
    // Printed once, outside the JSON log, because logs must never contain a secret.
    process.stdout.write(
      `\nYour API key (shown once, store it now): ${server.firstKey.secret}\n` +
        `Try it: curl -H "Authorization: Bearer ${server.firstKey.secret}" ${server.url}/v1/me\n` +
        `More keys: npx docex key create --workspace ${server.firstKey.workspaceId} --name NAME --scopes extractions:read,extractions:write\n\n`,
    );
  }
  const stop = (signal: string) => {
    server.logger.info({ signal }, 'shutting down');
    // Every step of close() is bounded by SHUTDOWN_TIMEOUT_MS (requests in flight are cut off then, the
    // worker threads terminated); should one hang all the same, the process still ends.
    setTimeout(() => {
      server.logger.error({ signal }, 'shutdown did not finish in time; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs + SHUTDOWN_GRACE_MS).unref();
    server.close().then(
      () => process.exit(0),
      (err: unknown) => {
        server.logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

await main();
