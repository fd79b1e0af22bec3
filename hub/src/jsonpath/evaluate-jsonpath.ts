import { testCondition, type ConditionContext } from './filter-conditions.js';
import type { JsonPathQuery, Segment, Selector } from './jsonpath-syntax.js';
import type { PatternLookup } from './standard-functions.js';

// The segments and selectors of RFC 9535 section 2.3 and 2.5. No step recurses on the document: a body may nest
// deeper than the stack allows, and the evaluation must end in a verdict rather than a stack overflow.

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function childrenOf(node: unknown): unknown[] {
  if (Array.isArray(node)) return node;
  return isObject(node) ? Object.values(node) : [];
}

/** The node and everything below it, each node before its children and children in document order. */
function descendantsOf(node: unknown): unknown[] {
  const found: unknown[] = [];
  const pending = [node];
  while (pending.length > 0) {
    const next = pending.pop();
    found.push(next);
    const children = childrenOf(next);
    for (let index = children.length - 1; index >= 0; index -= 1) pending.push(children[index]);
  }
  return found;
}

/** slice-selector, normalized as RFC 9535 section 2.3.4.2.2 says. */
function selectSlice(array: unknown[], selector: Extract<Selector, { kind: 'slice' }>, out: unknown[]): void {
  const step = selector.step ?? 1;
  if (step === 0) return;
  const length = array.length;
  const normalize = (index: number) => (index >= 0 ? index : length + index);
  if (step > 0) {
    const lower = Math.min(Math.max(normalize(selector.start ?? 0), 0), length);
    const upper = Math.min(Math.max(normalize(selector.end ?? length), 0), length);
    for (let index = lower; index < upper; index += step) out.push(array[index]);
  } else {
    const upper = Math.min(Math.max(normalize(selector.start ?? length - 1), -1), length - 1);
    const lower = Math.min(Math.max(normalize(selector.end ?? -length - 1), -1), length - 1);
    for (let index = upper; lower < index; index += step) out.push(array[index]);
  }
}

function select(node: unknown, selector: Selector, out: unknown[], context: ConditionContext): void {
  switch (selector.kind) {
    case 'name':
      if (isObject(node) && Object.hasOwn(node, selector.name)) out.push(node[selector.name]);
      return;
    case 'wildcard':
      for (const child of childrenOf(node)) out.push(child);
      return;
    case 'index':
      if (Array.isArray(node)) {
        const index = selector.index >= 0 ? selector.index : node.length + selector.index;
        if (index >= 0 && index < node.length) out.push(node[index]);
      }
      return;
    case 'slice':
      if (Array.isArray(node)) selectSlice(node, selector, out);
      return;
    case 'filter':
      for (const child of childrenOf(node))
        if (testCondition(selector.condition, child, context)) out.push(child);
  }
}

function applySegment(segment: Segment, nodes: unknown[], context: ConditionContext): unknown[] {
  const out: unknown[] = [];
  for (const node of nodes) {
    const inputs = segment.descendant ? descendantsOf(node) : [node];
    for (const input of inputs)
      for (const selector of segment.selectors) select(input, selector, out, context);
  }
  return out;
}

/** The nodelist (values, in order) the query selects from `document`. */
export function evaluateJsonPath(
  query: JsonPathQuery,
  document: unknown,
  patterns: PatternLookup,
): unknown[] {
  const context: ConditionContext = {
    patterns,
    select: (inner, current) => {
      let nodes = [inner.from === '$' ? document : current];
      for (const segment of inner.segments) nodes = applySegment(segment, nodes, context);
      return nodes;
    },
  };
  return context.select(query, document);
}
