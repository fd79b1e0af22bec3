// The caller's token lives in sessionStorage: entered (or signed in) once per browser tab session, gone when the
// tab closes, never in a cookie, so the API's bearer-only authentication stays the only way in.
import type { ConsoleSignIn } from '../../hub/src/console/console.routes.js';

const TOKEN_KEY = 'meerkat.token';
const RETURN_KEY = 'meerkat.return';

/** What /ui/config.json answers (hub/src/console/console.routes.ts). */
export type SignInConfig = ConsoleSignIn;

export const storedToken = (): string | null => sessionStorage.getItem(TOKEN_KEY);
export const storeToken = (token: string): void => sessionStorage.setItem(TOKEN_KEY, token);
export const forgetToken = (): void => sessionStorage.removeItem(TOKEN_KEY);

/** Where to go back to after signing in: a console path only, so a crafted link cannot send the user away. */
export function rememberReturnPath(path: string): void {
  if (path.startsWith('/ui/') && !path.startsWith('/ui/sign-in')) sessionStorage.setItem(RETURN_KEY, path);
}
export function takeReturnPath(): string {
  const path = sessionStorage.getItem(RETURN_KEY);
  sessionStorage.removeItem(RETURN_KEY);
  return path !== null && path.startsWith('/ui/') && !path.startsWith('//') ? path : '/ui/';
}

let config: Promise<SignInConfig> | undefined;
export function signInConfig(): Promise<SignInConfig> {
  config ??= fetch('/ui/config.json')
    .then((res) => res.json() as Promise<{ data: SignInConfig }>)
    .then((body) => body.data);
  return config;
}
