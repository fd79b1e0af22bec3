import { pino, type Logger } from 'pino';

/**
 * Paths that may carry a credential. Secret values themselves never reach a log call (they stay references
 * until used); this list is the net under that rule.
 */
const redactedPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-slack-signature"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.secret',
  '*.token',
  '*.apiKey',
  '*.credentials',
  '*.value',
  '*.signingSecret',
  '*.clientSecret',
];

export function createLogger(level: string, base: Record<string, unknown> = {}): Logger {
  return pino({
    level,
    base: { service: 'meerkat', ...base },
    redact: { paths: redactedPaths, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  });
}
