import { describe, expect, it } from 'vitest';
import { isRetryable } from '../../hub/src/scheduling/job-retries.js';
import { isDatabaseUnavailable } from '../../hub/src/system/dependency-errors.js';

describe('a statement past its bound is "the database is unavailable"', () => {
  it('maps node-postgres query_timeout (server silent) to unavailable, so the API answers 503', () => {
    const timedOut = new Error('Query read timeout');
    expect(isDatabaseUnavailable(timedOut)).toBe(true);
    expect(isDatabaseUnavailable(new Error('wrapped', { cause: timedOut }))).toBe(true);
  });

  it('maps a statement cancelled at statement_timeout (57014) to unavailable, so a write is retried', () => {
    const cancelled = Object.assign(new Error('canceling statement due to statement timeout'), {
      code: '57014',
    });
    expect(isDatabaseUnavailable(cancelled)).toBe(true);
    expect(isRetryable(cancelled)).toBe(true);
  });

  it('still tells a bad row from an absent database', () => {
    const badRow = Object.assign(new Error('null value in column "status"'), { code: '23502' });
    expect(isDatabaseUnavailable(badRow)).toBe(false);
    expect(isRetryable(badRow)).toBe(false);
  });
});
