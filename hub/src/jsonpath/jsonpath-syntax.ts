// The syntax tree of an RFC 9535 JSONPath query, as parse-jsonpath.ts builds it and evaluate-jsonpath.ts walks it.

/** A query: from the root (`$`) or, inside a filter, from the current node (`@`). */
export interface JsonPathQuery {
  kind: 'query';
  from: '$' | '@';
  segments: Segment[];
}

export interface Segment {
  /** `..`: the selectors apply to the input node and every node below it. */
  descendant: boolean;
  selectors: Selector[];
  /**
   * Written as one of the forms RFC 9535 allows in a singular query (`.name`, `['name']`, `[0]`): a query made of
   * such segments selects at most one node, so it may be compared.
   */
  singular: boolean;
}

export type Selector =
  | { kind: 'name'; name: string }
  | { kind: 'wildcard' }
  | { kind: 'index'; index: number }
  | { kind: 'slice'; start: number | undefined; end: number | undefined; step: number | undefined }
  | { kind: 'filter'; condition: LogicalExpression };

export interface Literal {
  kind: 'literal';
  value: string | number | boolean | null;
}

export interface FunctionCall {
  kind: 'function';
  name: string;
  args: FunctionArgument[];
}

export type ComparisonOperator = '==' | '!=' | '<' | '<=' | '>' | '>=';

/** A literal, a singular query or a function of ValueType: the parser and the type check ensure which. */
export type Comparable = Literal | JsonPathQuery | FunctionCall;

export type LogicalExpression =
  | { kind: 'or'; operands: LogicalExpression[] }
  | { kind: 'and'; operands: LogicalExpression[] }
  | { kind: 'not'; operand: LogicalExpression }
  | { kind: 'comparison'; operator: ComparisonOperator; left: Comparable; right: Comparable }
  | { kind: 'test'; operand: JsonPathQuery | FunctionCall };

export type FunctionArgument = Literal | JsonPathQuery | FunctionCall | LogicalExpression;

export const isSingularQuery = (query: JsonPathQuery): boolean =>
  query.segments.every((segment) => segment.singular);
