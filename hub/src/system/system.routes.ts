import { Router } from 'express';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { jsonResponse } from '../openapi/responses.js';

/**
 * A dependency the hub reports on `/readyz`. A `required` one decides readiness (503 while it fails); any other
 * is reported in `checks` only, so trouble there never takes every hub out of its Service.
 */
export interface ReadinessCheck {
  name: string;
  required: boolean;
  check(): Promise<void>;
}

const CHECK_TIMEOUT_MS = 2_000;

/** Runs one check within 2 s: `ok`, or why not. `/readyz` and the `meerkat_dependency_up` gauge share it. */
export async function runCheck(check: ReadinessCheck): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  try {
    await Promise.race([check.check(), timeout]);
    return 'ok';
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    clearTimeout(timer);
  }
}

export function systemRoutes(version: string, checks: readonly ReadinessCheck[]): Router {
  const router = Router();
  router.get('/', (_req, res) => {
    res.json({ status: 'ok', version });
  });
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const results = await Promise.all(
      checks.map(async (c) => [c.name, await runCheck(c), c.required] as const),
    );
    const failed = results.filter(([, outcome, required]) => required && outcome !== 'ok');
    if (failed.length === 0) {
      res.json({
        status: 'ready',
        checks: Object.fromEntries(results.map(([name, outcome]) => [name, outcome])),
      });
      return;
    }
    res.status(503).json({
      error: `not ready: ${failed.map(([name]) => name).join(', ')} unreachable`,
      code: 'unavailable',
      details: failed.map(([name, message]) => ({ path: name, message })),
    });
  });
  return router;
}

const statusSchema = z.object({ status: z.literal('ok'), version: z.string() }).meta({ id: 'ServiceStatus' });

export const systemPaths: ZodOpenApiPathsObject = {
  '/': {
    get: {
      tags: ['system'],
      summary: 'Health check (no authentication)',
      security: [],
      responses: { '200': jsonResponse('The hub is up.', statusSchema) },
    },
  },
  '/healthz': {
    get: {
      tags: ['system'],
      summary: 'Liveness probe (no authentication)',
      security: [],
      responses: { '200': jsonResponse('The process is alive.', z.object({ status: z.literal('ok') })) },
    },
  },
  '/readyz': {
    get: {
      tags: ['system'],
      summary: 'Readiness probe: the database answers; Redis is reported, not required (no authentication)',
      security: [],
      responses: {
        '200': jsonResponse(
          'The database answered; `checks` says how each dependency did (`ok` or why not).',
          z.object({ status: z.literal('ready'), checks: z.record(z.string(), z.string()) }),
        ),
        '503': { description: 'A dependency did not answer; `details` names it.' },
      },
    },
  },
};
