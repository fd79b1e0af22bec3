import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { evaluateJsonPath } from '../../hub/src/jsonpath/evaluate-jsonpath.js';
import { JsonPathSyntaxError } from '../../hub/src/jsonpath/jsonpath-syntax-error.js';
import { parseJsonPath } from '../../hub/src/jsonpath/parse-jsonpath.js';
import { createRe2Patterns } from '../../hub/src/jsonpath/re2-patterns.js';

// Every case of the JSONPath Compliance Test Suite (compliance/README.md names its commit), the claim of ADR 0010.

interface ComplianceCase {
  name: string;
  selector: string;
  document?: unknown;
  /** The nodelist's values, when the RFC fixes their order. */
  result?: unknown[];
  /** Every allowed nodelist, when the order is not fixed (object members). */
  results?: unknown[][];
  invalid_selector?: true;
}

const suite = JSON.parse(readFileSync(new URL('compliance/cts.json', import.meta.url), 'utf8')) as {
  tests: ComplianceCase[];
};
const invalid = suite.tests.filter((test) => test.invalid_selector === true);
const valid = suite.tests.filter((test) => test.invalid_selector !== true);
const patterns = createRe2Patterns();

/** The error parsing throws, or undefined when the selector parses. */
function parseError(selector: string): unknown {
  try {
    parseJsonPath(selector);
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('the JSONPath Compliance Test Suite', () => {
  it('is the whole suite: 703 cases', () => {
    expect(suite.tests).toHaveLength(703);
    expect(invalid.length + valid.length).toBe(703);
  });

  it.each(invalid.map((test) => [test.name, test] as const))('refuses %s', (_name, test) => {
    expect(parseError(test.selector)).toBeInstanceOf(JsonPathSyntaxError);
  });

  it.each(valid.map((test) => [test.name, test] as const))('selects %s', (_name, test) => {
    const nodes = evaluateJsonPath(parseJsonPath(test.selector), test.document, patterns);
    if (test.result !== undefined) expect(nodes).toStrictEqual(test.result);
    else expect(test.results).toContainEqual(nodes);
  });
});
