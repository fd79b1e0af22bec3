import { navigate } from './router.js';
import { forgetToken, rememberReturnPath, storedToken } from './session.js';

/** An answer of the API other than 2xx, with its `{ error, code }`. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/**
 * Calls the hub's REST API with the session's token. A 401 means the token is gone or expired: the user signs in
 * again and comes back to the page they were on.
 */
export async function api<T>(
  path: string,
  init: { method?: string; body?: unknown; anonymous?: boolean } = {},
) {
  const headers: Record<string, string> = { accept: 'application/json' };
  const token = storedToken();
  if (!init.anonymous && token !== null) headers.authorization = `Bearer ${token}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, {
    method: init.method ?? 'GET',
    headers,
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (res.status === 401 && !init.anonymous) {
    forgetToken();
    rememberReturnPath(location.pathname + location.search);
    navigate('/ui/sign-in', true);
  }
  if (!res.ok) {
    const message =
      typeof body.error === 'string'
        ? body.error
        : typeof body.message === 'string'
          ? body.message
          : res.statusText;
    throw new ApiError(message, res.status, typeof body.code === 'string' ? body.code : undefined);
  }
  return body as T;
}

export const apiData = async <T>(path: string, init?: Parameters<typeof api>[1]) =>
  (await api<{ data: T }>(path, init)).data;
