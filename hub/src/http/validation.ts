import type { z } from 'zod';
import { describeIssue, formatIssuePath } from '../contract/issue-path.js';
import '../contract/zod-messages.js';
import { ValidationError, type FieldIssue } from './errors.js';
import { scanRequestInput } from './unstorable-text.js';

/** The message of one issue; a map key that fails its schema says why, not only zod's "Invalid key in record". */
function messageOf(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_key') return issue.issues[0]?.message ?? issue.message;
  return issue.message;
}

/** One issue per failing field; an unknown key is reported at its own path, not at its parent's. */
export function toFieldIssues(error: z.ZodError): FieldIssue[] {
  return error.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ path: formatIssuePath([...issue.path, key]), message: 'unknown field' }))
      : [{ path: formatIssuePath(issue.path), message: messageOf(issue) }],
  );
}

/**
 * How deeply any request part may nest. Free-form JSON (connection metadata, reported steps) is written with
 * JSON.stringify and read by PostgreSQL's jsonb parser, both recursive; definitions bound theirs to 64 levels.
 */
const MAX_REQUEST_DEPTH = 128;

function refuse(issue: FieldIssue, where: string): never {
  throw new ValidationError(`invalid ${where}: ${describeIssue(issue)}`, [issue]);
}

/**
 * Parses `input` with `schema` or throws a ValidationError whose message names the first failing field.
 * `where` says which part of the request was parsed (`body`, `query`, `params`).
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, where: string): z.output<S> {
  const { unstorable, deepField } = scanRequestInput(input, MAX_REQUEST_DEPTH);
  if (unstorable !== undefined) refuse(unstorable, where);
  const result = schema.safeParse(input);
  if (!result.success) {
    const details = toFieldIssues(result.error);
    const first = details[0];
    const message = first ? `invalid ${where}: ${describeIssue(first)}` : `invalid ${where}`;
    throw new ValidationError(message, details);
  }
  // Reported after the schema, which bounds its own recursive parts and names the field: this is for free-form JSON.
  if (deepField !== undefined) {
    const path = formatIssuePath(deepField === '' ? [] : [deepField]);
    refuse({ path, message: `nests more than ${MAX_REQUEST_DEPTH} levels of arrays and objects` }, where);
  }
  return result.data;
}
