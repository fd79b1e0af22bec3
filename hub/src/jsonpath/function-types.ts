import { FUNCTION_SIGNATURES, isFunctionName, type DeclaredType } from './function-signatures.js';
import { translateIRegexp } from './i-regexp.js';
import { JsonPathSyntaxError } from './jsonpath-syntax-error.js';
import {
  isSingularQuery,
  type Comparable,
  type FunctionArgument,
  type FunctionCall,
  type JsonPathQuery,
  type LogicalExpression,
} from './jsonpath-syntax.js';

// RFC 9535 section 2.4.3: a query whose function calls are not well-typed is not a valid query. Beyond the RFC,
// a literal pattern of match() or search() must be an I-Regexp: the RFC would make it silently false, and a
// monitor whose filter can never select anything is a mistake its author should hear about when saving it.

const fail = (problem: string): never => {
  throw new JsonPathSyntaxError(problem);
};

const KNOWN = Object.keys(FUNCTION_SIGNATURES).join(', ');
const ARGUMENT_KINDS: Record<DeclaredType, string> = {
  value: 'a value (a literal, a singular query such as @.name, or length() / count() / value())',
  nodes: 'a query (such as @.items[*])',
  logical: 'a condition',
};

/** Throws JsonPathSyntaxError when a function call in the query is unknown or not well-typed. */
export function checkFunctionTypes(query: JsonPathQuery): void {
  for (const segment of query.segments)
    for (const selector of segment.selectors)
      if (selector.kind === 'filter') checkCondition(selector.condition);
}

function checkCondition(expression: LogicalExpression): void {
  switch (expression.kind) {
    case 'or':
    case 'and':
      expression.operands.forEach(checkCondition);
      return;
    case 'not':
      checkCondition(expression.operand);
      return;
    case 'comparison':
      checkComparable(expression.left);
      checkComparable(expression.right);
      return;
    case 'test':
      if (expression.operand.kind === 'query') checkFunctionTypes(expression.operand);
      else if (checkCall(expression.operand) === 'value')
        fail(
          `${expression.operand.name}() gives a value, not a condition: compare it (${expression.operand.name}(...) == 1)`,
        );
  }
}

function checkComparable(comparable: Comparable): void {
  if (comparable.kind === 'query') checkFunctionTypes(comparable);
  else if (comparable.kind === 'function' && checkCall(comparable) !== 'value')
    fail(`${comparable.name}() gives a condition, which cannot be compared`);
}

/** The declared result type of a well-typed call. */
function checkCall(call: FunctionCall): DeclaredType {
  if (!isFunctionName(call.name)) return fail(`unknown function ${call.name}() (RFC 9535 defines ${KNOWN})`);
  const { parameters, result } = FUNCTION_SIGNATURES[call.name];
  if (call.args.length !== parameters.length)
    fail(`${call.name}() takes ${parameters.length} argument(s), not ${call.args.length}`);
  call.args.forEach((argument, index) => {
    const expected = parameters[index] ?? 'value';
    if (!fits(argument, expected))
      fail(`argument ${index + 1} of ${call.name}() must be ${ARGUMENT_KINDS[expected]}`);
  });
  const pattern = call.args[1];
  if ((call.name === 'match' || call.name === 'search') && pattern?.kind === 'literal') {
    const translated = typeof pattern.value === 'string' ? translateIRegexp(pattern.value) : undefined;
    if (translated !== undefined && 'problem' in translated)
      fail(`the pattern of ${call.name}() is not an I-Regexp (RFC 9485): ${translated.problem}`);
  }
  return result;
}

/** Whether the argument can be given for a parameter of the declared type (RFC 9535 section 2.4.3). */
function fits(argument: FunctionArgument, expected: DeclaredType): boolean {
  switch (argument.kind) {
    case 'literal':
      return expected === 'value';
    case 'query':
      checkFunctionTypes(argument);
      return expected !== 'value' || isSingularQuery(argument);
    case 'function': {
      const result = checkCall(argument);
      return result === expected || (expected === 'logical' && result === 'nodes');
    }
    default:
      checkCondition(argument);
      return expected === 'logical';
  }
}
