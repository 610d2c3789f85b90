import pino, { type Logger } from 'pino';

export type { Logger };

/** Structured JSON logs on stdout; secrets are redacted wherever they might appear. */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'docex' },
      redact: {
        paths: ['req.headers.authorization', 'headers.authorization', 'authorization', 'apiKey', 'key', 'secret'],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
