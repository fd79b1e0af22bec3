import type { JsonPathQuery } from '../jsonpath/jsonpath-syntax.js';
import {
  kubectlPathToQuery,
  parseTemplate,
  printable,
  selectValues,
  TemplateError,
  type Template,
} from './jsonpath-template.js';
import { parseJsonPath } from '../jsonpath/parse-jsonpath.js';
import { JsonPathSyntaxError } from '../jsonpath/jsonpath-syntax-error.js';

// kubectl's `-o custom-columns=HEADER:PATH,...` and `--sort-by=PATH`, on the documents `-o yaml` prints.

export interface CustomColumn {
  header: string;
  template: Template;
}

/** Splits at the commas that are outside brackets and quotes: a path may hold `['a','b']`. */
function splitColumns(spec: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let start = 0;
  for (let i = 0; i < spec.length; i += 1) {
    const char = spec[i];
    if (quote !== undefined) {
      if (char === quote) quote = undefined;
    } else if (char === "'" || char === '"') quote = char;
    else if (char === '[' || char === '{') depth += 1;
    else if (char === ']' || char === '}') depth -= 1;
    else if (char === ',' && depth === 0) {
      parts.push(spec.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(spec.slice(start));
  return parts;
}

/** `NAME:.metadata.name,EVERY:.spec.frequency.every`; a path may also be written `{.metadata.name}`. */
export function parseCustomColumns(spec: string): CustomColumn[] {
  if (spec.trim() === '') throw new TemplateError('custom-columns needs at least one HEADER:PATH');
  return splitColumns(spec).map((column) => {
    const colon = column.indexOf(':');
    if (colon <= 0) throw new TemplateError(`custom column "${column}" is not HEADER:PATH`);
    const path = column.slice(colon + 1).trim();
    if (path === '') throw new TemplateError(`custom column "${column}" has no path`);
    return {
      header: column.slice(0, colon),
      template: parseTemplate(path.startsWith('{') ? path : `{${path}}`),
    };
  });
}

/** A cell: the values the column's paths select, joined by commas as kubectl does, `<none>` for none. */
export function customCell(column: CustomColumn, document: unknown): string {
  const values: string[] = [];
  for (const action of column.template.actions) {
    if (action.kind === 'text') values.push(action.text);
    else if (action.kind === 'path') values.push(...selectValues(action.query, document).map(printable));
  }
  return values.length === 0 ? '<none>' : values.join(',');
}

/** `--sort-by`'s path, with or without the braces kubectl also takes. */
export function parseSortBy(path: string): JsonPathQuery {
  const bare = path.trim().replace(/^\{(.*)\}$/s, '$1');
  try {
    return parseJsonPath(kubectlPathToQuery(bare));
  } catch (error) {
    if (error instanceof JsonPathSyntaxError) throw new TemplateError(`${error.message} in ${path}`);
    throw error;
  }
}

type SortKey = { kind: 0; value: number } | { kind: 1; value: string } | { kind: 2 };

function sortKey(query: JsonPathQuery, document: unknown): SortKey {
  const [value] = selectValues(query, document);
  if (typeof value === 'number') return { kind: 0, value };
  if (value === undefined || value === null) return { kind: 2 };
  return { kind: 1, value: printable(value) };
}

/**
 * Orders `items` by the value `query` selects in each one's document: numbers by value, then everything else as
 * text, then the items without that field; a stable sort, so equal ones keep the hub's order.
 */
export function sortByPath<T>(items: T[], documentOf: (item: T) => unknown, query: JsonPathQuery): T[] {
  const keyed = items.map((item) => ({ item, key: sortKey(query, documentOf(item)) }));
  keyed.sort((a, b) => {
    if (a.key.kind !== b.key.kind) return a.key.kind - b.key.kind;
    if (a.key.kind === 0 && b.key.kind === 0) return a.key.value - b.key.value;
    if (a.key.kind === 1 && b.key.kind === 1)
      return a.key.value < b.key.value ? -1 : a.key.value > b.key.value ? 1 : 0;
    return 0;
  });
  return keyed.map(({ item }) => item);
}
