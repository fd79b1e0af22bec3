import { formatIssuePath } from '../contract/issue-path.js';
import { LONE_SURROGATE } from '../contract/storable-text.js';
import type { FieldIssue } from './errors.js';

// PostgreSQL text and jsonb cannot hold NUL (SQLSTATE 22021, 22P05), and an unpaired UTF-16 surrogate is not a
// Unicode character at all (it would turn into U+FFFD or be refused): a request carrying either is refused where
// it is read, naming the field, instead of failing later in the database.
function problemOf(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain NUL (\\u0000)';
  // The shared pattern is global: search() neither reads nor moves its lastIndex.
  if (text.search(LONE_SURROGATE) !== -1) return 'must not contain an unpaired UTF-16 surrogate';
  return undefined;
}

interface Visit {
  value: unknown;
  key: PropertyKey;
  parent: Visit | undefined;
  /** Arrays and objects around this value. */
  depth: number;
  /** The top-level field this value is in: '' for the input itself. */
  field: PropertyKey;
}

function pathOf(visit: Visit): string {
  const keys: PropertyKey[] = [];
  for (let at: Visit | undefined = visit; at?.parent !== undefined; at = at.parent) keys.push(at.key);
  return formatIssuePath(keys.reverse());
}

export interface RequestInputScan {
  /** A string (a value or an object key) that must not be stored. */
  unstorable?: FieldIssue;
  /** The first top-level field that nests arrays and objects more than `maxDepth` levels ('' for the input). */
  deepField?: PropertyKey;
}

/**
 * One walk over a parsed request part for both things every request is checked for. Parsed JSON can nest
 * hundreds of thousands of levels, so the walk keeps its own stack rather than recursing.
 */
export function scanRequestInput(input: unknown, maxDepth: number): RequestInputScan {
  const scan: RequestInputScan = {};
  const pending: Visit[] = [{ value: input, key: '', parent: undefined, depth: 0, field: '' }];
  for (let visit = pending.pop(); visit !== undefined; visit = pending.pop()) {
    const { value } = visit;
    if (typeof value === 'string') {
      const problem = problemOf(value);
      if (problem !== undefined) return { unstorable: { path: pathOf(visit), message: problem } };
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    const depth = visit.depth + 1;
    if (depth > maxDepth) scan.deepField ??= visit.field;
    const fieldOf = (key: PropertyKey) => (visit.parent === undefined ? key : visit.field);
    if (Array.isArray(value)) {
      for (let index = value.length - 1; index >= 0; index--)
        pending.push({ value: value[index], key: index, parent: visit, depth, field: fieldOf(index) });
      continue;
    }
    for (const [key, child] of Object.entries(value as Record<string, unknown>).reverse()) {
      const entry = { value: child, key, parent: visit, depth, field: fieldOf(key) };
      const problem = problemOf(key);
      if (problem !== undefined)
        return { unstorable: { path: pathOf(entry), message: `the field name ${problem}` } };
      pending.push(entry);
    }
  }
  return scan;
}
