import { resolveSecretRefs, type JsonValue } from '../secrets/secret-refs.js';
import { version } from '../system/version.js';
import { checkResolvedHeaderValues } from './header-values.js';
import type { HttpRequestNode, StepContext } from './step-context.js';

/** A request with every secret reference replaced by its value, ready to send. */
export interface RequestTarget {
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
  /** Lower-case names of the headers whose value came from a `$secret`: never sent on to another origin. */
  secretHeaders: ReadonlySet<string>;
}

/** `base` and `path` with exactly one "/" between them; `base` may carry a path prefix, `path` a query string. */
export function joinBaseAndPath(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

class InvalidRequestUrlError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = new.target.name;
  }
}

function checkUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidRequestUrlError(`base and path do not form a valid URL: ${url}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new InvalidRequestUrlError(`the URL must be http or https: ${url}`);
}

const hasHeader = (headers: Record<string, string>, name: string) =>
  Object.keys(headers).some((key) => key.toLowerCase() === name);

/**
 * Resolves the node's secret references at the moment of use (SecretNotFoundError when one is missing) and
 * records every value used in `context.secretValues`, so nothing the run reports can show it.
 */
export async function resolveRequestTarget(
  node: HttpRequestNode,
  context: StepContext,
): Promise<RequestTarget> {
  const unresolved = { base: node.base, path: node.path, headers: node.headers ?? {} } as Record<
    string,
    JsonValue
  >;
  if (node.body !== undefined) unresolved.body = node.body;
  const { value, secretValues } = await resolveSecretRefs(unresolved, context.secrets);
  for (const secret of secretValues) context.secretValues.add(secret);
  const resolved = value as { base: string; path: string; headers: Record<string, string>; body?: JsonValue };

  const url = joinBaseAndPath(resolved.base, resolved.path);
  checkUrl(url);
  const headers = { ...resolved.headers };
  checkResolvedHeaderValues(headers);
  if (!hasHeader(headers, 'user-agent')) headers['user-agent'] = `meerkat/${version}`;
  if (resolved.body !== undefined && !hasHeader(headers, 'content-type'))
    headers['content-type'] = 'application/json';
  const secretHeaders = new Set(
    Object.entries(node.headers ?? {})
      .filter(([, value]) => typeof value !== 'string')
      .map(([name]) => name.toLowerCase()),
  );
  return {
    url,
    headers,
    body: resolved.body === undefined ? undefined : JSON.stringify(resolved.body),
    secretHeaders,
  };
}
