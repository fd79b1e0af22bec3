import { formatIssuePath } from '../contract/issue-path.js';
import type { FieldIssue } from './errors.js';

// PostgreSQL text and jsonb cannot hold NUL (SQLSTATE 22021, 22P05), and an unpaired UTF-16 surrogate is not a
// Unicode character at all (it would turn into U+FFFD or be refused): a request carrying either is refused where
// it is read, naming the field, instead of failing later in the database.
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function problemOf(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain NUL (\\u0000)';
  if (UNPAIRED_SURROGATE.test(text)) return 'must not contain an unpaired UTF-16 surrogate';
  return undefined;
}

interface Visit {
  value: unknown;
  key: PropertyKey;
  parent: Visit | undefined;
}

function pathOf(visit: Visit): string {
  const keys: PropertyKey[] = [];
  for (let at: Visit | undefined = visit; at?.parent !== undefined; at = at.parent) keys.push(at.key);
  return formatIssuePath(keys.reverse());
}

/**
 * A string in `input` (a value or an object key) that must not be stored, as a field issue. Parsed JSON
 * can nest hundreds of thousands of levels, so the walk keeps its own stack rather than recursing.
 */
export function findUnstorableText(input: unknown): FieldIssue | undefined {
  const pending: Visit[] = [{ value: input, key: '', parent: undefined }];
  for (let visit = pending.pop(); visit !== undefined; visit = pending.pop()) {
    const { value } = visit;
    if (typeof value === 'string') {
      const problem = problemOf(value);
      if (problem !== undefined) return { path: pathOf(visit), message: problem };
    } else if (Array.isArray(value)) {
      for (let index = value.length - 1; index >= 0; index--)
        pending.push({ value: value[index], key: index, parent: visit });
    } else if (value !== null && typeof value === 'object') {
      for (const [key, child] of Object.entries(value as Record<string, unknown>).reverse()) {
        const entry = { value: child, key, parent: visit };
        const problem = problemOf(key);
        if (problem !== undefined) return { path: pathOf(entry), message: `the field name ${problem}` };
        pending.push(entry);
      }
    }
  }
  return undefined;
}
