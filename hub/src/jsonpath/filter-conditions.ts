import { FUNCTION_SIGNATURES, type DeclaredType } from './function-signatures.js';
import type {
  Comparable,
  ComparisonOperator,
  FunctionArgument,
  FunctionCall,
  JsonPathQuery,
  LogicalExpression,
} from './jsonpath-syntax.js';
import { callStandardFunction, NOTHING, type PatternLookup } from './standard-functions.js';

// The filter expressions of RFC 9535 section 2.3.5, evaluated against one candidate node (`@`). The query was
// type-checked when parsed, so every argument has the form its parameter needs.

export interface ConditionContext {
  patterns: PatternLookup;
  /** The nodes a query selects, `@` being `current`. */
  select(query: JsonPathQuery, current: unknown): unknown[];
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Equality of JSON values: numbers by value (so 0 == -0), arrays in order, objects by their members. */
function jsonEqual(left: unknown, right: unknown): boolean {
  // A worklist rather than recursion: compared values come from the document, which may nest very deep.
  const pairs: Array<[unknown, unknown]> = [[left, right]];
  for (let pair = pairs.pop(); pair !== undefined; pair = pairs.pop()) {
    const [a, b] = pair;
    if (a === b) continue;
    if (Array.isArray(a) && Array.isArray(b)) {
      if (a.length !== b.length) return false;
      a.forEach((item, index) => pairs.push([item, b[index]]));
    } else if (isObject(a) && isObject(b)) {
      const keys = Object.keys(a);
      if (keys.length !== Object.keys(b).length || !keys.every((key) => Object.hasOwn(b, key))) return false;
      for (const key of keys) pairs.push([a[key], b[key]]);
    } else return false;
  }
  return true;
}

/** Strings order by Unicode code point, which UTF-16 code unit order (JavaScript's `<`) is not past U+FFFF. */
function codePointLess(left: string, right: string): boolean {
  for (let index = 0; index < left.length && index < right.length;) {
    const a = left.codePointAt(index) ?? 0;
    const b = right.codePointAt(index) ?? 0;
    if (a !== b) return a < b;
    index += a > 0xffff ? 2 : 1;
  }
  return left.length < right.length;
}

function less(left: unknown, right: unknown): boolean {
  if (typeof left === 'number' && typeof right === 'number') return left < right;
  if (typeof left === 'string' && typeof right === 'string') return codePointLess(left, right);
  return false;
}

function compare(left: unknown, operator: ComparisonOperator, right: unknown): boolean {
  const equal = () => (left === NOTHING || right === NOTHING ? left === right : jsonEqual(left, right));
  switch (operator) {
    case '==':
      return equal();
    case '!=':
      return !equal();
    case '<':
      return less(left, right);
    case '<=':
      return less(left, right) || equal();
    case '>':
      return less(right, left);
    case '>=':
      return less(right, left) || equal();
  }
}

/** ValueType of a literal, a singular query or a function of ValueType. */
function valueOf(comparable: Comparable, current: unknown, context: ConditionContext): unknown {
  if (comparable.kind === 'literal') return comparable.value;
  if (comparable.kind === 'function') return call(comparable, current, context);
  const nodes = context.select(comparable, current);
  return nodes.length === 1 ? nodes[0] : NOTHING;
}

function argumentOf(
  argument: FunctionArgument,
  type: DeclaredType,
  current: unknown,
  context: ConditionContext,
) {
  if (type === 'nodes' && argument.kind === 'query') return context.select(argument, current);
  if (type === 'logical') {
    if (argument.kind === 'query') return context.select(argument, current).length > 0;
    if (argument.kind !== 'function' && argument.kind !== 'literal')
      return testCondition(argument, current, context);
  }
  return valueOf(argument as Comparable, current, context);
}

function call(fn: FunctionCall, current: unknown, context: ConditionContext): unknown {
  const name = fn.name as keyof typeof FUNCTION_SIGNATURES;
  const parameters: readonly DeclaredType[] = FUNCTION_SIGNATURES[name].parameters;
  const args = fn.args.map((argument, index) =>
    argumentOf(argument, parameters[index] ?? 'value', current, context),
  );
  return callStandardFunction(name, args, context.patterns);
}

/** Whether `current` passes the filter's condition. */
export function testCondition(
  condition: LogicalExpression,
  current: unknown,
  context: ConditionContext,
): boolean {
  switch (condition.kind) {
    case 'or':
      return condition.operands.some((operand) => testCondition(operand, current, context));
    case 'and':
      return condition.operands.every((operand) => testCondition(operand, current, context));
    case 'not':
      return !testCondition(condition.operand, current, context);
    case 'comparison':
      return compare(
        valueOf(condition.left, current, context),
        condition.operator,
        valueOf(condition.right, current, context),
      );
    case 'test': {
      if (condition.operand.kind === 'query') return context.select(condition.operand, current).length > 0;
      const result = call(condition.operand, current, context);
      return Array.isArray(result) ? result.length > 0 : result === true;
    }
  }
}
