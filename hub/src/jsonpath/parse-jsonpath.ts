import { checkFunctionTypes } from './function-types.js';
import { Cursor } from './jsonpath-cursor.js';
import {
  isSingularQuery,
  type Comparable,
  type ComparisonOperator,
  type FunctionArgument,
  type FunctionCall,
  type JsonPathQuery,
  type Literal,
  type LogicalExpression,
  type Segment,
  type Selector,
} from './jsonpath-syntax.js';

// The grammar of RFC 9535 (appendix A) as recursive descent. Each rule reads forward and looks ahead at most one
// token, so parsing is linear in the path's length; a backtracking PEG parser of the same grammar is exponential
// in nested parentheses (docs/adr/0010-assertion-evaluation.md).

type Primary = Literal | JsonPathQuery | FunctionCall;
const COMPARISON_OPERATORS: ComparisonOperator[] = ['==', '!=', '<=', '>=', '<', '>'];

/**
 * Parses an RFC 9535 JSONPath query and checks that its function calls are well-typed. Throws
 * JsonPathSyntaxError saying where and why.
 */
export function parseJsonPath(text: string): JsonPathQuery {
  const cursor = new Cursor(text);
  if (!cursor.eat('$')) cursor.unexpected('a JSONPath starts with "$"');
  const query: JsonPathQuery = { kind: 'query', from: '$', segments: parseSegments(cursor) };
  if (!cursor.atEnd) cursor.unexpected();
  checkFunctionTypes(query);
  return query;
}

/** Blanks then a token, consumed only when the token is there. */
function eatAfterBlanks(cursor: Cursor, token: string): boolean {
  const before = cursor.position;
  cursor.skipBlanks();
  if (cursor.eat(token)) return true;
  cursor.position = before;
  return false;
}

function parseSegments(cursor: Cursor): Segment[] {
  const segments: Segment[] = [];
  for (;;) {
    const before = cursor.position;
    cursor.skipBlanks();
    const segment = parseSegment(cursor);
    if (segment === undefined) {
      cursor.position = before;
      return segments;
    }
    segments.push(segment);
  }
}

function parseSegment(cursor: Cursor): Segment | undefined {
  if (cursor.eat('..')) {
    if (cursor.peek() === '[')
      return { descendant: true, selectors: parseBrackets(cursor).selectors, singular: false };
    if (cursor.eat('*')) return { descendant: true, selectors: [{ kind: 'wildcard' }], singular: false };
    return {
      descendant: true,
      selectors: [{ kind: 'name', name: cursor.readMemberName() }],
      singular: false,
    };
  }
  if (cursor.eat('.')) {
    if (cursor.eat('*')) return { descendant: false, selectors: [{ kind: 'wildcard' }], singular: false };
    return {
      descendant: false,
      selectors: [{ kind: 'name', name: cursor.readMemberName() }],
      singular: true,
    };
  }
  if (cursor.peek() !== '[') return undefined;
  const { selectors, blanks } = parseBrackets(cursor);
  const only = selectors.length === 1 ? selectors[0] : undefined;
  const singular = !blanks && (only?.kind === 'name' || only?.kind === 'index');
  return { descendant: false, selectors, singular };
}

/** bracketed-selection; `blanks` when it has blanks inside, which a singular query's segment may not. */
function parseBrackets(cursor: Cursor): { selectors: Selector[]; blanks: boolean } {
  cursor.expect('[');
  let blanks = cursor.skipBlanks();
  const selectors = [parseSelector(cursor)];
  while (eatAfterBlanks(cursor, ',')) {
    cursor.skipBlanks();
    selectors.push(parseSelector(cursor));
  }
  blanks = cursor.skipBlanks() || blanks;
  cursor.expect(']');
  return { selectors, blanks };
}

function parseSelector(cursor: Cursor): Selector {
  const char = cursor.peek();
  if (char === "'" || char === '"') return { kind: 'name', name: cursor.readString() };
  if (cursor.eat('*')) return { kind: 'wildcard' };
  if (cursor.eat('?')) {
    cursor.skipBlanks();
    return { kind: 'filter', condition: parseLogical(cursor) };
  }
  const start = cursor.atNumber() ? cursor.readInteger() : undefined;
  if (!eatAfterBlanks(cursor, ':')) {
    if (start === undefined) cursor.unexpected('expected a selector');
    return { kind: 'index', index: start };
  }
  cursor.skipBlanks();
  const end = cursor.atNumber() ? cursor.readInteger() : undefined;
  let step: number | undefined;
  if (eatAfterBlanks(cursor, ':')) {
    cursor.skipBlanks();
    step = cursor.atNumber() ? cursor.readInteger() : undefined;
  }
  return { kind: 'slice', start, end, step };
}

/** logical-expr; with `bareLiteral` (a function argument) a lone literal is accepted too. */
function parseLogical(cursor: Cursor, bareLiteral = false): LogicalExpression {
  return parseJunction(cursor, '||', bareLiteral) as LogicalExpression;
}

function parseJunction(
  cursor: Cursor,
  operator: '||' | '&&',
  bareLiteral: boolean,
): LogicalExpression | Literal {
  const start = cursor.position;
  const parseOperand = (allowLiteral: boolean) =>
    operator === '||' ? parseJunction(cursor, '&&', allowLiteral) : parseBasic(cursor, allowLiteral);
  const first = parseOperand(bareLiteral);
  const operands = [first];
  while (eatAfterBlanks(cursor, operator)) {
    cursor.skipBlanks();
    operands.push(parseOperand(false));
  }
  if (operands.length === 1) return first;
  if (first.kind === 'literal') cursor.fail(`a literal is not a condition for ${operator}`, start);
  return { kind: operator === '||' ? 'or' : 'and', operands: operands as LogicalExpression[] };
}

function parseBasic(cursor: Cursor, bareLiteral: boolean): LogicalExpression | Literal {
  if (cursor.eat('!')) {
    cursor.skipBlanks();
    if (cursor.eat('(')) return { kind: 'not', operand: parseParenthesized(cursor) };
    const start = cursor.position;
    const operand = parsePrimary(cursor);
    if (operand.kind === 'literal')
      cursor.fail('"!" negates a query, a function or a parenthesized condition', start);
    return { kind: 'not', operand: { kind: 'test', operand } };
  }
  if (cursor.eat('(')) return parseParenthesized(cursor);
  const leftStart = cursor.position;
  const left = parsePrimary(cursor);
  const operator = readComparisonOperator(cursor);
  if (operator !== undefined) {
    cursor.skipBlanks();
    const rightStart = cursor.position;
    const right = parsePrimary(cursor);
    return {
      kind: 'comparison',
      operator,
      left: comparable(cursor, left, leftStart),
      right: comparable(cursor, right, rightStart),
    };
  }
  if (left.kind !== 'literal') return { kind: 'test', operand: left };
  if (!bareLiteral) cursor.fail('a literal alone is not a condition: compare it with something', leftStart);
  return left;
}

function parseParenthesized(cursor: Cursor): LogicalExpression {
  cursor.skipBlanks();
  const expression = parseLogical(cursor);
  cursor.skipBlanks();
  cursor.expect(')');
  return expression;
}

function readComparisonOperator(cursor: Cursor): ComparisonOperator | undefined {
  const before = cursor.position;
  cursor.skipBlanks();
  const operator = COMPARISON_OPERATORS.find((candidate) => cursor.eat(candidate));
  if (operator === undefined) cursor.position = before;
  return operator;
}

function comparable(cursor: Cursor, primary: Primary, at: number): Comparable {
  if (primary.kind === 'query' && !isSingularQuery(primary))
    cursor.fail('only a singular query (such as @.name or $.items[0]) can be compared', at);
  return primary;
}

function parsePrimary(cursor: Cursor): Primary {
  const char = cursor.peek();
  if (char === '@' || char === '$') {
    cursor.position += 1;
    return { kind: 'query', from: char, segments: parseSegments(cursor) };
  }
  if (char === "'" || char === '"') return { kind: 'literal', value: cursor.readString() };
  if (cursor.atNumber()) return { kind: 'literal', value: cursor.readNumber() };
  const start = cursor.position;
  const word = cursor.readLowerCaseWord();
  if (word !== '' && cursor.peek() === '(') return parseFunctionCall(cursor, word);
  if (word === 'true' || word === 'false') return { kind: 'literal', value: word === 'true' };
  if (word === 'null') return { kind: 'literal', value: null };
  cursor.position = start;
  return cursor.unexpected('expected a query, a literal or a function');
}

function parseFunctionCall(cursor: Cursor, name: string): FunctionCall {
  cursor.expect('(');
  cursor.skipBlanks();
  const args: FunctionArgument[] = [];
  if (!cursor.eat(')')) {
    args.push(parseArgument(cursor));
    while (eatAfterBlanks(cursor, ',')) {
      cursor.skipBlanks();
      args.push(parseArgument(cursor));
    }
    cursor.skipBlanks();
    cursor.expect(')');
  }
  return { kind: 'function', name, args };
}

/** A literal, a query or a function call stands for itself; anything else is a condition (logical-expr). */
function parseArgument(cursor: Cursor): FunctionArgument {
  const parenthesized = cursor.peek() === '(';
  const argument = parseJunction(cursor, '||', true);
  return argument.kind === 'test' && !parenthesized ? argument.operand : argument;
}
