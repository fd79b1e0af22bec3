import { describe, expect, it } from 'vitest';
import { compactedStepsOf } from '../../hub/src/runs/compacted-steps.js';

// A compacted step is stored as `[nodeId, type, status, durationMs]` (docs/adr/0080); steps compacted before it
// are objects, and whole steps too. The API answers each as the object. The steps come as the database gives
// them: parsed JSON.
const stored = (json: string) => JSON.parse(json) as Parameters<typeof compactedStepsOf>[0];

describe('compactedStepsOf', () => {
  it('reads a stored array as the step it was compacted from, leaving out the fields it did not have', () => {
    expect(
      compactedStepsOf(
        stored(
          '[["get", "HTTP_REQUEST", "passed", 1.1], ["check", "ASSERTION", "failed", null], [null, null, null, null]]',
        ),
      ),
    ).toEqual([
      { nodeId: 'get', type: 'HTTP_REQUEST', status: 'passed', durationMs: 1.1 },
      { nodeId: 'check', type: 'ASSERTION', status: 'failed' },
      {},
    ]);
  });

  it('keeps objects as stored: whole steps and steps compacted before the arrays, alone or mixed in one run', () => {
    const whole = [{ nodeId: 'get', type: 'HTTP_REQUEST', status: 'passed', response: { status: 200 } }];
    expect(compactedStepsOf(whole)).toBe(whole);
    expect(
      compactedStepsOf(
        stored('[{"nodeId": "get", "status": "passed"}, ["check", "ASSERTION", "passed", 0]]'),
      ),
    ).toEqual([
      { nodeId: 'get', status: 'passed' },
      { nodeId: 'check', type: 'ASSERTION', status: 'passed', durationMs: 0 },
    ]);
    expect(compactedStepsOf(null)).toBeNull();
    expect(compactedStepsOf([])).toEqual([]);
  });
});
