import type { z } from 'zod';
import { describeIssue, formatIssuePath } from '../contract/issue-path.js';
import '../contract/zod-messages.js';
import { ValidationError, type FieldIssue } from './errors.js';

/** One issue per failing field; an unknown key is reported at its own path, not at its parent's. */
export function toFieldIssues(error: z.ZodError): FieldIssue[] {
  return error.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ path: formatIssuePath([...issue.path, key]), message: 'unknown field' }))
      : [{ path: formatIssuePath(issue.path), message: issue.message }],
  );
}

/**
 * Parses `input` with `schema` or throws a ValidationError whose message names the first failing field.
 * `where` says which part of the request was parsed (`body`, `query`, `params`).
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, where: string): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const details = toFieldIssues(result.error);
  const first = details[0];
  const message = first ? `invalid ${where}: ${describeIssue(first)}` : `invalid ${where}`;
  throw new ValidationError(message, details);
}
