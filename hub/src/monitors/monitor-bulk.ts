// `POST /monitor/bulk`: up to 100 monitor PUTs in one request (docs/adr/0054-operator-steady-status-and-bulk-sync.md).
// Each item is the PUT of `/monitor/{id}` it stands for, with its own validation, transaction and answer, so a
// client that writes many monitors at once (the operator syncing a fleet) spends one request of its rate limit per
// hundred monitors, not one each. Items are written in the order given; one refused item refuses no other.
import type { Request } from 'express';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { principalOf } from '../auth/middleware.js';
import { monitorDefinitionSchema } from '../contract/monitor-definition.js';
import { statusOfCode } from '../http/error-middleware.js';
import { AppError, ValidationError } from '../http/errors.js';
import { parseInput } from '../http/validation.js';
import { errorBodySchema, errorResponses, jsonResponse } from '../openapi/responses.js';
import {
  bulkEnvelope,
  bulkMonitorAnswerSchema,
  bulkMonitorPutSchema,
  MAX_BULK_MONITORS,
  type BulkMonitorResult,
} from './monitor-bulk.schema.js';
import type { MonitorService } from './monitor.service.js';

/** Writes each item as its PUT would; an error that is no refusal (the database gone) fails the whole request. */
export async function putMonitorsInBulk(
  monitors: MonitorService,
  req: Request,
): Promise<BulkMonitorResult[]> {
  parseInput(z.strictObject({}), req.query, 'query');
  const body = parseInput(bulkEnvelope, req.body, 'body');
  refuseRepeatedIds(body.monitors.map((item) => item.id));
  const { organizationId } = principalOf(req);
  // Read once for every item: an unchanged item is answered from it, a written one does not read the quotas again.
  const stored = await monitors.readStored(
    organizationId,
    body.monitors.map((item) => item.id),
  );
  const results: BulkMonitorResult[] = [];
  for (const [index, item] of body.monitors.entries()) {
    try {
      const definition = parseInput(
        monitorDefinitionSchema,
        item.definition,
        `monitors[${index}].definition`,
      );
      const { monitor, created } = await monitors.upsert(organizationId, item.id, definition, { stored });
      results.push({ id: item.id, status: created ? 201 : 200, data: monitor });
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      const details = 'details' in error && Array.isArray(error.details) ? { details: error.details } : {};
      // The error body a PUT would answer, checked against its schema rather than cast to it.
      const refusal = errorBodySchema.parse({ error: error.message, code: error.code, ...details });
      results.push({ id: item.id, status: statusOfCode(error.code), error: refusal });
    }
  }
  return results;
}

function refuseRepeatedIds(ids: string[]): void {
  const seen = new Set<string>();
  for (const [index, id] of ids.entries()) {
    if (seen.has(id)) {
      const path = `monitors[${index}].id`;
      throw new ValidationError(`invalid body: ${path}: ${id} is written twice`, [
        { path, message: `${id} is written twice in one request` },
      ]);
    }
    seen.add(id);
  }
}

export const monitorBulkPaths: ZodOpenApiPathsObject = {
  '/monitor/bulk': {
    post: {
      tags: ['monitors'],
      summary: `Create or update up to ${MAX_BULK_MONITORS} monitors in one request (role editor)`,
      description:
        'Each item is written as `PUT /monitor/{id}` with its body would be, in its own transaction, in the order ' +
        'given, and answered in `data` at the same index with the status that PUT would answer and its monitor or ' +
        'error. A refused item (invalid definition, quota, name clash) refuses no other. The whole request is ' +
        'refused with 400 when the envelope is invalid (no `monitors`, more than 100, an id twice). It costs one ' +
        'request of the rate limits, so a client writing many monitors (the operator) is not held to one a token.',
      requestBody: { content: { 'application/json': { schema: bulkMonitorPutSchema } } },
      responses: {
        '200': jsonResponse('One result per item, in order.', bulkMonitorAnswerSchema),
        ...errorResponses(400, 413, 415),
      },
    },
  },
};
