import type { Settings } from '../config/settings.js';
import type { ConsoleSettings } from './console.routes.js';

/**
 * How the console signs in: in `oidc` mode with the issuer and audience the API checks tokens against, and the
 * console's own public client; without OIDC_CONSOLE_CLIENT_ID an `oidc` hub's console cannot sign anyone in, so
 * its sign-in page says so rather than offering a key the API would refuse.
 */
export function consoleSettingsOf(
  settings: Readonly<
    Pick<
      Settings,
      'AUTH_MODE' | 'OIDC_ISSUER' | 'OIDC_AUDIENCE' | 'OIDC_CONSOLE_CLIENT_ID' | 'OIDC_CONSOLE_SCOPE'
    >
  >,
): ConsoleSettings {
  if (settings.AUTH_MODE !== 'oidc') return { signIn: { authMode: 'api-key' } };
  const { OIDC_ISSUER: issuer, OIDC_AUDIENCE: audience, OIDC_CONSOLE_CLIENT_ID: clientId } = settings;
  if (issuer === undefined || audience === undefined || clientId === undefined)
    return { signIn: { authMode: 'oidc' } };
  return {
    signIn: { authMode: 'oidc', oidc: { issuer, audience, clientId, scope: settings.OIDC_CONSOLE_SCOPE } },
  };
}
