import { headerValueProblem } from '../contract/request-headers.js';

/** A header value, once its secret references are resolved, that no request may carry. */
class InvalidHeaderValueError extends Error {
  constructor(name: string, problem: string) {
    super(`header ${name}: the resolved value ${problem}`);
    this.name = new.target.name;
  }
}

/**
 * Literal values were checked when the monitor was saved; a secret's value is known only now. A CR or LF in it
 * would split the request, so the step fails, saying which header without quoting the value.
 */
export function checkResolvedHeaderValues(headers: Record<string, string>): void {
  for (const [name, value] of Object.entries(headers)) {
    const problem = headerValueProblem(value);
    if (problem !== undefined) throw new InvalidHeaderValueError(name, problem);
  }
}
