/** A run's JSONPath assertions took more evaluation-thread time than ASSERTION_BUDGET_MS allows. */
export class AssertionBudgetError extends Error {
  constructor(readonly budgetMs: number) {
    super(
      `JSONPath evaluation stopped: over the run's assertion budget of ${budgetMs} ms (ASSERTION_BUDGET_MS)`,
    );
    this.name = new.target.name;
  }
}
