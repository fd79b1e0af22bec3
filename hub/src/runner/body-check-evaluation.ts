import type { Assertion } from '../contract/assertion.js';
import { evaluateJsonPath } from '../jsonpath/evaluate-jsonpath.js';
import type { JsonPathQuery } from '../jsonpath/jsonpath-syntax.js';
import { JsonPathSyntaxError } from '../jsonpath/jsonpath-syntax-error.js';
import { parseJsonPath } from '../jsonpath/parse-jsonpath.js';
import { createRe2Patterns } from '../jsonpath/re2-patterns.js';
import { applyBinaryOperator, applyUnaryOperator, type Verdict } from './assertion-operators.js';

// What an assertion thread does with one response: parse the body once, select with each body assertion's
// JSONPath and apply its predicate. Runs on a pool thread (assertion-pool.ts), never on the event loop.

/** One `body` assertion, as the thread needs it. */
export interface BodyCheck {
  path: string;
  predicate: Assertion['predicate'];
}

/** Its verdict; `actual` is what the path selected, as a JSON text cut at PREVIEW_CHARS when longer. */
export interface BodyVerdict extends Verdict {
  actual: unknown;
}

/**
 * What crosses back to the event loop is bounded: a selection that is large (`$..*` on a deep body holds every
 * subtree) comes back as the start of its JSON text. Run results show at most 1 KiB of it, cut after secrets are
 * redacted, so this is long enough that no secret that could show is cut here.
 */
const PREVIEW_CHARS = 8192;
const QUERY_CACHE_SIZE = 512;

/** Writes the value's JSON text into `parts` while `room` lasts; false when it ran out. */
function writeJson(value: unknown, parts: string[], room: { left: number }): boolean {
  const write = (text: string) => {
    parts.push(text);
    room.left -= text.length;
    return room.left >= 0;
  };
  if (Array.isArray(value)) {
    if (!write('[')) return false;
    for (let index = 0; index < value.length; index += 1)
      if ((index > 0 && !write(',')) || !writeJson(value[index], parts, room)) return false;
    return write(']');
  }
  if (value !== null && typeof value === 'object') {
    if (!write('{')) return false;
    let first = true;
    for (const [key, member] of Object.entries(value)) {
      if (!write(`${first ? '' : ','}${JSON.stringify(key)}:`) || !writeJson(member, parts, room))
        return false;
      first = false;
    }
    return write('}');
  }
  return write(JSON.stringify(value) ?? 'null');
}

/** The selection itself when its JSON text fits PREVIEW_CHARS, else the start of that text. */
function boundedActual(value: unknown): unknown {
  if (typeof value === 'string') return value.length > PREVIEW_CHARS ? value.slice(0, PREVIEW_CHARS) : value;
  if (value === null || typeof value !== 'object') return value;
  const parts: string[] = [];
  return writeJson(value, parts, { left: PREVIEW_CHARS }) ? value : parts.join('').slice(0, PREVIEW_CHARS);
}

/** Why a check could not be evaluated, never quoting the body. */
function problemOf(error: unknown): string {
  if (error instanceof JsonPathSyntaxError) return `invalid JSONPath: ${error.message}`;
  if (error instanceof RangeError) return 'the body nests too deeply to evaluate this JSONPath';
  return `the JSONPath could not be evaluated (${error instanceof Error ? error.name : 'unknown error'})`;
}

/**
 * An evaluator that keeps, across calls, the parsed paths and compiled patterns: a thread serves the same
 * monitors again and again.
 */
export function createBodyCheckEvaluator(): (text: string, checks: readonly BodyCheck[]) => BodyVerdict[] {
  const queries = new Map<string, JsonPathQuery | JsonPathSyntaxError>();
  const patterns = createRe2Patterns();
  const queryOf = (path: string): JsonPathQuery => {
    let query = queries.get(path);
    if (query === undefined) {
      try {
        query = parseJsonPath(path);
      } catch (error) {
        if (!(error instanceof JsonPathSyntaxError)) throw error;
        query = error;
      }
      if (queries.size >= QUERY_CACHE_SIZE) queries.clear();
      queries.set(path, query);
    }
    if (query instanceof JsonPathSyntaxError) throw query;
    return query;
  };

  return (text, checks) => {
    const document: unknown = JSON.parse(text);
    const selections = new Map<string, unknown[]>();
    return checks.map(({ path, predicate }): BodyVerdict => {
      try {
        const nodes = selections.get(path) ?? evaluateJsonPath(queryOf(path), document, patterns);
        selections.set(path, nodes);
        // One match is the value itself; a path that selects several values yields the list of them.
        const actual = nodes.length === 0 ? undefined : nodes.length === 1 ? nodes[0] : nodes;
        const verdict =
          predicate.type === 'binary'
            ? applyBinaryOperator(predicate.operator, actual, predicate.expected)
            : applyUnaryOperator(predicate.operator, actual);
        return { ...verdict, actual: boundedActual(actual) };
      } catch (error) {
        return { actual: undefined, passed: false, problem: problemOf(error) };
      }
    });
  };
}
