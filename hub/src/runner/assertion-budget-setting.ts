import { z } from 'zod';
import { DEFAULT_ASSERTION_BUDGET_MS } from './run-outcome.js';

/**
 * ASSERTION_BUDGET_MS, for every process that runs monitors (`dev`, `worker`, `runner`, `test`): milliseconds of
 * assertion-thread time a run's JSONPath body assertions may take together (docs/adr/0010-assertion-evaluation.md).
 */
export const assertionBudgetShape = {
  ASSERTION_BUDGET_MS: z.coerce.number().int().min(10).max(60_000).default(DEFAULT_ASSERTION_BUDGET_MS),
};
