/** `nodes` + 2 -> `nodes[2]`; `nodes[2]` + `method` -> `nodes[2].method`; '' + `name` -> `name`. */
export function appendPathKey(path: string, key: PropertyKey): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path === '' ? String(key) : `${path}.${String(key)}`;
}

/** `['nodes', 2, 'method']` -> `nodes[2].method`. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((text, key) => appendPathKey(text, key), '');
}

/** `path: message`, or the message alone for an issue about the whole value (path ''). */
export function describeIssue(issue: { path: string; message: string }): string {
  return issue.path === '' ? issue.message : `${issue.path}: ${issue.message}`;
}
