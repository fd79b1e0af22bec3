/** PostgreSQL SQLSTATE codes the services turn into typed answers (the same from pg and PGlite). */
export const SqlState = {
  uniqueViolation: '23505',
  foreignKeyViolation: '23503',
  /** The deadlock detector cancelled this statement: the other transaction goes on. */
  deadlockDetected: '40P01',
  /** NUL in a text value. */
  characterNotInRepertoire: '22021',
  /** `\u0000` (or an escape the server encoding lacks) in a jsonb value. */
  untranslatableCharacter: '22P05',
} as const;

export function hasSqlState(error: unknown, state: string): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === state;
}

/** The constraint a violation names (pg and PGlite both report it), if any. */
export function constraintOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('constraint' in error)) return undefined;
  return typeof error.constraint === 'string' ? error.constraint : undefined;
}

// Data exceptions (22) and program limits (54, e.g. "null character not permitted"): the value is what the
// database refuses, so writing the same value again can never succeed.
const CONTENT_CLASSES = new Set(['22', '54']);

/**
 * Why the database refused a value, in words that never quote it: its message before any ":" (after which
 * PostgreSQL may quote the input) without quoted parts, and the SQLSTATE. `undefined` for any other failure.
 */
export function contentRefusalOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  const code = error.code;
  if (typeof code !== 'string' || !CONTENT_CLASSES.has(code.slice(0, 2))) return undefined;
  const message = 'message' in error && typeof error.message === 'string' ? error.message : '';
  const words =
    message
      .split(':')[0]
      ?.replace(/"[^"]*"|'[^']*'/g, '')
      .replace(/\s+/g, ' ')
      .trim() ?? '';
  return words === '' ? `SQLSTATE ${code}` : `${words.slice(0, 120)} (SQLSTATE ${code})`;
}
