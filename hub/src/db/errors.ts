/** PostgreSQL SQLSTATE codes the services turn into typed answers (the same from pg and PGlite). */
export const SqlState = {
  uniqueViolation: '23505',
  foreignKeyViolation: '23503',
} as const;

export function hasSqlState(error: unknown, state: string): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === state;
}
