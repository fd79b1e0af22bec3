// A logger that keeps what it writes, for tests proving that a value (a secret) never reaches a log call.
import { pino, type Logger } from 'pino';

export interface CapturedLog {
  /** Logs every level, unredacted. */
  log: Logger;
  /** The lines written so far, each a JSON object and its newline. */
  lines: string[];
  /** Every line written so far, as one string. */
  text(): string;
}

export function capturedLog(): CapturedLog {
  const lines: string[] = [];
  return {
    log: pino({ level: 'trace' }, { write: (line: string) => lines.push(line) }),
    lines,
    text: () => lines.join(''),
  };
}

/** The statuses a hub answered, from its request log (pino-http's `res.statusCode`), in order. */
export function answeredStatuses(log: CapturedLog): number[] {
  return log.lines.flatMap((line) => {
    const status = (JSON.parse(line) as { res?: { statusCode?: number } }).res?.statusCode;
    return status === undefined ? [] : [status];
  });
}
