import { isDeepStrictEqual } from 'node:util';
import type {
  BinaryOperator,
  numericOperators,
  stringOperators,
  UnaryOperator,
} from '../contract/assertion.js';

/** Whether a predicate held; `problem` says why the comparison could not be made (never quoting a value). */
export interface Verdict {
  passed: boolean;
  problem?: string;
}

// DESIGN.md: numeric operators compare numbers, string operators compare strings. Headers and text are
// strings on the wire, so a numeric string ("42") counts as a number and a number as its decimal text.

function asNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const parsed = Number(value);
  return Number.isFinite(parsed) ? parsed : undefined;
}

function asText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

function asBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  const text = typeof value === 'string' ? value.trim().toLowerCase() : undefined;
  return text === 'true' ? true : text === 'false' ? false : undefined;
}

/** EQUAL compares in the type of `expected`, so status 200, header "200" and body 200 all equal 200. */
function looselyEqual(actual: unknown, expected: unknown): boolean {
  if (typeof expected === 'number') return asNumber(actual) === expected;
  if (typeof expected === 'string') return asText(actual) === expected;
  if (typeof expected === 'boolean') return asBoolean(actual) === expected;
  if (expected === null) return actual === null || actual === undefined;
  return isDeepStrictEqual(actual, expected);
}

const absent = (value: unknown) => value === undefined || value === null;

type NumericOperator = (typeof numericOperators)[number];
type StringOperator = (typeof stringOperators)[number];

const numericComparisons: Record<NumericOperator, (left: number, right: number) => boolean> = {
  GREATER_THAN: (left, right) => left > right,
  LESS_THAN: (left, right) => left < right,
  GREATER_THAN_OR_EQUAL: (left, right) => left >= right,
  LESS_THAN_OR_EQUAL: (left, right) => left <= right,
};

const stringComparisons: Record<StringOperator, (text: string, needle: string) => boolean> = {
  CONTAINS: (text, needle) => text.includes(needle),
  NOT_CONTAINS: (text, needle) => !text.includes(needle),
  STARTS_WITH: (text, needle) => text.startsWith(needle),
  ENDS_WITH: (text, needle) => text.endsWith(needle),
  NOT_STARTS_WITH: (text, needle) => !text.startsWith(needle),
  NOT_ENDS_WITH: (text, needle) => !text.endsWith(needle),
};

function compareNumbers(operator: NumericOperator, actual: unknown, expected: unknown): Verdict {
  const left = asNumber(actual);
  const right = asNumber(expected);
  if (left === undefined || right === undefined)
    return { passed: false, problem: absent(actual) ? 'absent' : 'not a number' };
  return { passed: numericComparisons[operator](left, right) };
}

function compareStrings(operator: StringOperator, actual: unknown, expected: unknown): Verdict {
  // A JSONPath that selects a list: CONTAINS asks whether the list holds the expected value.
  if (Array.isArray(actual) && (operator === 'CONTAINS' || operator === 'NOT_CONTAINS')) {
    const member = actual.some((item) => looselyEqual(item, expected));
    return { passed: operator === 'CONTAINS' ? member : !member };
  }
  const text = asText(actual);
  if (text === undefined) return { passed: false, problem: absent(actual) ? 'absent' : 'not a string' };
  return { passed: stringComparisons[operator](text, asText(expected) ?? '') };
}

const isNumericOperator = (operator: BinaryOperator): operator is NumericOperator =>
  Object.hasOwn(numericComparisons, operator);

export function applyBinaryOperator(operator: BinaryOperator, actual: unknown, expected: unknown): Verdict {
  if (operator === 'EQUAL') return { passed: looselyEqual(actual, expected) };
  if (operator === 'NOT_EQUAL') return { passed: !looselyEqual(actual, expected) };
  if (isNumericOperator(operator)) return compareNumbers(operator, actual, expected);
  return compareStrings(operator, actual, expected);
}

function isEmpty(value: unknown): boolean {
  if (absent(value) || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && Object.keys(value).length === 0;
}

export function applyUnaryOperator(operator: UnaryOperator, actual: unknown): Verdict {
  switch (operator) {
    case 'IS_NULL':
      return { passed: absent(actual) };
    case 'IS_NOT_NULL':
      return { passed: !absent(actual) };
    case 'IS_EMPTY':
      return { passed: isEmpty(actual) };
    case 'IS_NOT_EMPTY':
      return { passed: !isEmpty(actual) };
    case 'IS_TRUE':
    case 'IS_FALSE': {
      const truth = asBoolean(actual);
      if (truth === undefined) return { passed: false, problem: absent(actual) ? 'absent' : 'not a boolean' };
      return { passed: truth === (operator === 'IS_TRUE') };
    }
  }
}
