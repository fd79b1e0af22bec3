// A compacted step as it is stored (docs/adr/0080): the array `[nodeId, type, status, durationMs]` that
// `compactedSteps` (run-keep.repository.ts) writes, null where the step had no such field. Steps compacted before
// it are objects with the same fields, and a whole step is an object: both are read as they are. Only a compacted
// run's steps (`details_compacted`, a row's or a fold's) are read through here.

import type { StoredStep } from '../db/tables.js';

/** The fields of a compacted step, in the order of its stored array. */
const COMPACTED_STEP_FIELDS = ['nodeId', 'type', 'status', 'durationMs'] as const;

/** A stored step as the record the API answers: a compacted step's array becomes the object it was compacted from. */
function stepOf(stored: StoredStep): StoredStep {
  if (!Array.isArray(stored)) return stored;
  const values: readonly unknown[] = stored;
  const step: StoredStep = {};
  COMPACTED_STEP_FIELDS.forEach((field, i) => {
    const value = values[i];
    if (value !== null && value !== undefined) step[field] = value;
  });
  return step;
}

/**
 * A run's stored steps as records: compacted arrays read as objects, anything else as stored. The column is typed
 * as records (db/tables.ts); a compacted step may be an array at run time, which is what this reads.
 */
export function compactedStepsOf(steps: StoredStep[] | null): StoredStep[] | null {
  if (steps === null || !steps.some((step) => Array.isArray(step))) return steps;
  return steps.map(stepOf);
}
