import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { Router, type RequestHandler } from 'express';
import { NotFoundError, UnavailableError } from '../http/errors.js';

/** What the browser needs to sign in; served as /ui/config.json, so one build fits every hub. */
export interface ConsoleSignIn {
  authMode: 'api-key' | 'oidc';
  /** In `oidc` mode: the issuer, the console's public client (authorization code with PKCE) and the API audience. */
  oidc?: { issuer: string; clientId: string; audience: string; scope: string };
}

export interface ConsoleSettings {
  signIn: ConsoleSignIn;
  /** The built console (docs/adr/0020-web-console.md); default `web/dist` beside the hub's sources or build. */
  assetsDir?: string;
}

/**
 * Where the build may be: `web/dist` three levels up from `hub/src/console/` (sources under tsx) and from
 * `dist/hub/src/console/` (the image copies the build to `dist/web/dist`); four levels up, a checkout's own
 * `web/dist` when it runs a local `npm run build` of the hub.
 */
const defaultAssetsDirs = ['../../../web/dist', '../../../../web/dist'].map((dir) =>
  fileURLToPath(new URL(dir, import.meta.url)),
);

/** The page's own origin, plus the OIDC issuer it signs in against; nothing else may run or be fetched. */
function contentSecurityPolicy(signIn: ConsoleSignIn): string {
  const issuer = signIn.oidc === undefined ? '' : ` ${new URL(signIn.oidc.issuer).origin}`;
  return [
    "default-src 'self'",
    `connect-src 'self'${issuer}`,
    "img-src 'self' data:",
    // uPlot and the waterfall size their bars with style attributes.
    "style-src 'self' 'unsafe-inline'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
  ].join('; ');
}

/**
 * The console under /ui/: hashed assets cached for a year, every other path the single page (the browser routes
 * it), and the sign-in settings. It needs no credentials: the pages call the API with the caller's own token.
 */
export function consoleRoutes(settings: ConsoleSettings): Router {
  // Looked up per request, so a hub started before `npm run build:console` finished serves the console after it.
  const assetsDir = () => {
    const dirs = settings.assetsDir === undefined ? defaultAssetsDirs : [settings.assetsDir];
    return dirs.find((dir) => existsSync(join(dir, 'index.html')));
  };
  const csp = contentSecurityPolicy(settings.signIn);
  const router = Router();

  router.use((_req, res, next) => {
    res.setHeader('Content-Security-Policy', csp);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    next();
  });
  router.get('/config.json', (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.json({ data: settings.signIn });
  });
  // One static handler per build folder, made on its first request, not on every one.
  const staticHandlers = new Map<string, RequestHandler>();
  router.use('/assets', (req, res, next) => {
    const dir = assetsDir();
    if (dir === undefined) return next();
    let serve = staticHandlers.get(dir);
    if (serve === undefined) {
      serve = express.static(join(dir, 'assets'), { immutable: true, maxAge: '365d' });
      staticHandlers.set(dir, serve);
    }
    serve(req, res, next);
  });
  // A missing asset is a 404, not the page: a stale tab asking for an old hash must fail loudly.
  router.use('/assets', (req, _res, next) => next(new NotFoundError(`no console asset ${req.path}`)));
  router.get('/{*page}', (_req, res) => {
    const dir = assetsDir();
    if (dir === undefined)
      throw new UnavailableError('the console is not built: run `npm run build:console`');
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(join(dir, 'index.html'));
  });
  return router;
}
