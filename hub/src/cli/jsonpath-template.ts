import { evaluateJsonPath } from '../jsonpath/evaluate-jsonpath.js';
import { JsonPathSyntaxError } from '../jsonpath/jsonpath-syntax-error.js';
import type { JsonPathQuery } from '../jsonpath/jsonpath-syntax.js';
import { parseJsonPath } from '../jsonpath/parse-jsonpath.js';
import { createRe2Patterns } from '../jsonpath/re2-patterns.js';

// kubectl's JSONPath templates (`-o jsonpath=`, `custom-columns=`, `--sort-by`): text with `{...}` actions, each a
// path, a quoted string, or `range PATH` ... `end`. The paths are kubectl's (`.items[*].metadata.name`, relative to
// the current object), translated here to RFC 9535 queries and evaluated by the runner's bounded engine
// (hub/src/jsonpath, ADR 0037): one JSONPath implementation in the program, not two.

/** A template a person typed; its evaluation is bounded so a nested `range` cannot run away. */
const MAX_TEMPLATE_LENGTH = 4096;
const MAX_RANGE_DEPTH = 8;
const MAX_STEPS = 1_000_000;

export class TemplateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

type Action =
  | { kind: 'text'; text: string }
  | { kind: 'path'; query: JsonPathQuery }
  | { kind: 'range'; query: JsonPathQuery; body: Action[] };

export interface Template {
  actions: Action[];
}

const SHORTHAND = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The index after the `close` that matches the `open` at `start`, skipping quoted text and nested pairs: the end of
 * a bracketed selection `[...]` or of a template action `{...}`.
 */
function afterMatching(text: string, start: number, open: string, close: string): number {
  let depth = 0;
  let quote: string | undefined;
  for (let i = start; i < text.length; i += 1) {
    const char = text[i];
    if (quote !== undefined) {
      if (char === '\\') i += 1;
      else if (char === quote) quote = undefined;
    } else if (char === "'" || char === '"') quote = char;
    else if (char === open) depth += 1;
    else if (char === close && --depth === 0) return i + 1;
  }
  throw new TemplateError(`unclosed "${open}" at character ${start + 1} of ${text}`);
}

/**
 * kubectl's path as an RFC 9535 query: `$` or `@` or nothing first (all the current object), and a dotted name may
 * hold what RFC 9535 shorthand may not (`.metadata.labels.team-name`, `\.` for a dot), so such names become
 * `['...']`. Bracketed selections and filters are taken as RFC 9535 writes them, which kubectl's also are.
 */
export function kubectlPathToQuery(path: string): string {
  let rest = path.trim();
  if (rest.startsWith('$') || rest.startsWith('@')) rest = rest.slice(1);
  if (rest === '.') rest = '';
  let query = '$';
  let i = 0;
  while (i < rest.length) {
    if (rest[i] === '[') {
      const end = afterMatching(rest, i, '[', ']');
      query += rest.slice(i, end);
      i = end;
      continue;
    }
    if (rest[i] !== '.') throw new TemplateError(`unexpected "${rest[i]}" in ${path}`);
    const dots = rest.startsWith('..', i) ? '..' : '.';
    i += dots.length;
    if (rest[i] === '[') {
      query += dots === '..' ? '..' : '';
      continue;
    }
    let name = '';
    while (i < rest.length && rest[i] !== '.' && rest[i] !== '[') {
      if (rest[i] === '\\' && rest[i + 1] === '.') i += 1;
      name += rest[i];
      i += 1;
    }
    if (name === '') throw new TemplateError(`a name is missing after "${dots}" in ${path}`);
    query +=
      name === '*' || SHORTHAND.test(name)
        ? `${dots}${name}`
        : `${dots === '..' ? '..' : ''}[${JSON.stringify(name)}]`;
  }
  return query;
}

function parsePath(path: string): JsonPathQuery {
  try {
    return parseJsonPath(kubectlPathToQuery(path));
  } catch (error) {
    if (error instanceof JsonPathSyntaxError) throw new TemplateError(`${error.message} in ${path}`);
    throw error;
  }
}

/** A quoted string action, `{"\n"}` or `{'-'}`: JSON's escapes in double quotes, none in single ones. */
function parseQuoted(text: string): string {
  if (text.startsWith("'")) return text.slice(1, -1);
  try {
    return JSON.parse(text) as string;
  } catch {
    throw new TemplateError(`${text} is not a valid quoted string`);
  }
}

/** Parses a kubectl JSONPath template; throws TemplateError saying what is wrong. */
export function parseTemplate(template: string): Template {
  if (template.length > MAX_TEMPLATE_LENGTH)
    throw new TemplateError(`the template is longer than ${MAX_TEMPLATE_LENGTH} characters`);
  const stack: Action[][] = [[]];
  const ranges: Array<{ query: JsonPathQuery }> = [];
  let i = 0;
  while (i < template.length) {
    const open = template.indexOf('{', i);
    const text = template.slice(i, open === -1 ? undefined : open);
    if (text !== '') stack.at(-1)!.push({ kind: 'text', text });
    if (open === -1) break;
    const after = afterMatching(template, open, '{', '}');
    const body = template.slice(open + 1, after - 1).trim();
    i = after;
    if (body === 'end') {
      const range = ranges.pop();
      const actions = stack.pop();
      if (range === undefined || actions === undefined) throw new TemplateError('{end} without a {range}');
      stack.at(-1)!.push({ kind: 'range', query: range.query, body: actions });
    } else if (body.startsWith('range ')) {
      if (ranges.length >= MAX_RANGE_DEPTH)
        throw new TemplateError(`ranges nest deeper than ${MAX_RANGE_DEPTH}`);
      ranges.push({ query: parsePath(body.slice('range '.length)) });
      stack.push([]);
    } else if (body.startsWith('"') || body.startsWith("'")) {
      stack.at(-1)!.push({ kind: 'text', text: parseQuoted(body) });
    } else if (body === '') {
      throw new TemplateError('an empty {} in the template');
    } else {
      stack.at(-1)!.push({ kind: 'path', query: parsePath(body) });
    }
  }
  if (ranges.length > 0) throw new TemplateError('a {range} without its {end}');
  return { actions: stack[0]! };
}

/** How kubectl prints a value: strings as they are, anything else as JSON. */
export const printable = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/** Evaluates one path on `document`: the values it selects, in document order. */
export function selectValues(query: JsonPathQuery, document: unknown): unknown[] {
  return evaluateJsonPath(query, document, patterns);
}

const patterns = createRe2Patterns();

/** The template's text for `document`; several values of one path are joined by spaces, as kubectl joins them. */
export function renderTemplate(template: Template, document: unknown): string {
  let steps = 0;
  const out: string[] = [];
  const render = (actions: Action[], current: unknown) => {
    for (const action of actions) {
      if (++steps > MAX_STEPS) throw new TemplateError(`the template took more than ${MAX_STEPS} steps`);
      if (action.kind === 'text') out.push(action.text);
      else if (action.kind === 'path') out.push(selectValues(action.query, current).map(printable).join(' '));
      else for (const item of selectValues(action.query, current)) render(action.body, item);
    }
  };
  render(template.actions, document);
  return out.join('');
}
