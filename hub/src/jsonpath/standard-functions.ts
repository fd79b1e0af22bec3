import type { FunctionName } from './function-signatures.js';

/** RFC 9535's Nothing: the ValueType of a singular query that selected no node. */
export const NOTHING: unique symbol = Symbol('Nothing');
export type Nothing = typeof NOTHING;

/** A compiled I-Regexp; undefined from the lookup when the pattern is not one (match and search are then false). */
export interface CompiledPattern {
  /** The whole string matches (match()). */
  testExact(text: string): boolean;
  /** Some substring matches (search()). */
  test(text: string): boolean;
}
export type PatternLookup = (pattern: string) => CompiledPattern | undefined;

const isSurrogate = (unit: number) => unit >= 0xd800 && unit <= 0xdfff;

/** The number of Unicode scalar values: code points, without the lone surrogates a JSON string may hold. */
function scalarValueCount(text: string): number {
  let count = 0;
  for (const char of text) if (char.length === 2 || !isSurrogate(char.charCodeAt(0))) count += 1;
  return count;
}

function lengthOf(value: unknown): number | Nothing {
  if (typeof value === 'string') return scalarValueCount(value);
  if (Array.isArray(value)) return value.length;
  if (value !== null && typeof value === 'object') return Object.keys(value).length;
  return NOTHING;
}

/** A NodesType argument: the type check at parse time lets only a query's nodelist through. */
function nodelistOf(argument: unknown): unknown[] {
  if (Array.isArray(argument)) return argument;
  throw new TypeError('a NodesType argument is not a nodelist');
}

/**
 * Calls a standard function on arguments already converted to its declared parameter types: a ValueType is a
 * JSON value or NOTHING, a NodesType an array of nodes.
 */
export function callStandardFunction(name: FunctionName, args: unknown[], patterns: PatternLookup): unknown {
  const [first, second] = args;
  switch (name) {
    case 'length':
      return lengthOf(first);
    case 'count':
      return nodelistOf(first).length;
    case 'value': {
      const nodes = nodelistOf(first);
      return nodes.length === 1 ? nodes[0] : NOTHING;
    }
    case 'match':
    case 'search': {
      if (typeof first !== 'string' || typeof second !== 'string') return false;
      const pattern = patterns(second);
      if (pattern === undefined) return false;
      return name === 'match' ? pattern.testExact(first) : pattern.test(first);
    }
  }
}
