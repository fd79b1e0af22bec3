// The frame both meerkat.dev CRDs share (group, names, one served version with the status subresource, the
// envelope of the schema); each CRD file gives what is its own: names, printer columns, spec and status schemas.
import { z } from 'zod';
import { MONITOR_GROUP, MONITOR_VERSION } from '../monitor-resource-status.js';
import { toStructuralSchema, type JsonSchema } from './structural-schema.js';

/** A zod schema as the structural OpenAPI schema a CRD takes. */
export const structural = (schema: z.ZodType): JsonSchema =>
  toStructuralSchema(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }));

export interface CrdParts {
  plural: string;
  singular: string;
  kind: string;
  shortNames: string[];
  additionalPrinterColumns: object[];
  /** What the resource is, for `kubectl explain`. */
  description: string;
  spec: JsonSchema;
  status: z.ZodType;
}

export function buildCrd(parts: CrdParts) {
  const statusSchema = structural(parts.status);
  statusSchema.description = 'What the operator last observed; written only by the operator.';
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${parts.plural}.${MONITOR_GROUP}` },
    spec: {
      group: MONITOR_GROUP,
      scope: 'Namespaced',
      names: {
        plural: parts.plural,
        singular: parts.singular,
        kind: parts.kind,
        listKind: `${parts.kind}List`,
        shortNames: parts.shortNames,
        categories: ['meerkat'],
      },
      versions: [
        {
          name: MONITOR_VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: parts.additionalPrinterColumns,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              description: parts.description,
              properties: {
                apiVersion: {
                  type: 'string',
                  description: `apiVersion: ${MONITOR_GROUP}/${MONITOR_VERSION}.`,
                },
                kind: { type: 'string', description: `kind: ${parts.kind}.` },
                metadata: { type: 'object' },
                spec: parts.spec,
                status: statusSchema,
              },
              required: ['spec'],
            },
          },
        },
      ],
    },
  };
}
