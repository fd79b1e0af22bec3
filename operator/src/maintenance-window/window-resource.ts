// The MaintenanceWindow resource as the operator reads it, its status (the source of the CRD's status schema), and
// how a resource becomes the hub window it stands for (ADR 0035).
import { z } from 'zod';
import {
  maintenanceWindowDefinitionSchema,
  type Matcher,
  type MaintenanceWindowDefinition,
} from '../../../hub/src/contract/maintenance-definition.js';
import { describeIssue } from '../../../hub/src/contract/issue-path.js';
import { toFieldIssues } from '../../../hub/src/http/validation.js';
import { conditionSchema, type MonitorResource } from '../monitor-resource-status.js';
import type { ProjectPolicy } from '../project-tenancy.js';

export const WINDOW_PLURAL = 'maintenancewindows';

export const windowResourceStatusSchema = z
  .object({
    observedGeneration: z.int().min(0).optional().meta({
      description:
        'observedGeneration: the metadata.generation the operator last reached a verdict on (Ready says which).',
    }),
    updatedAt: z.string().optional().meta({
      description: 'updatedAt: when the operator last put the window into the hub (RFC 3339).',
    }),
    windowName: z.string().optional().meta({
      description: 'windowName: the hub window this resource is (`<namespace>-<name>`).',
    }),
    active: z.boolean().optional().meta({ description: 'active: whether an occurrence is in force now.' }),
    currentEnd: z.string().optional().meta({ description: 'currentEnd: when the occurrence in force ends.' }),
    nextStart: z.string().optional().meta({ description: 'nextStart: when the next occurrence starts.' }),
    conditions: z
      .array(conditionSchema)
      .optional()
      .meta({
        description:
          'conditions: `Ready` (kstatus): True once the hub holds this generation; `Stalled`: refused; ' +
          '`Reconciling`: no verdict yet. `Synced`: True once the hub holds the spec; False with the reason when not.',
      }),
  })
  .meta({ id: 'MaintenanceWindowStatus' });
export type WindowResourceStatus = z.infer<typeof windowResourceStatusSchema>;

/** The same metadata as a Monitor's; its own spec and status. */
export type WindowResource = Omit<MonitorResource, 'status'> & { status?: WindowResourceStatus };

/**
 * Hub windows are named per organization and one operator writes all namespaces with one key, so the name carries
 * the namespace: two teams' `deploy-freeze` stay two windows, and neither can replace the other's.
 */
export const hubWindowName = (resource: WindowResource) =>
  `${resource.metadata.namespace}-${resource.metadata.name}`;

/** A spec the operator will not put, with the field and why, for the Synced condition. */
export class WindowSpecRefusal extends Error {
  constructor(
    readonly reason: 'InvalidSpec' | 'ProjectNotAllowed',
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/**
 * The matchers kept to the namespace's projects: none named means the namespace's default project (as a Monitor's
 * project defaults); named ones must be projects the namespace may write, and `!=` (every other project) only for a
 * namespace that may write any project.
 */
function scopedMatchers(matchers: Matcher[], namespace: string, projects: ProjectPolicy): Matcher[] {
  const named = matchers.filter((m) => m.label === 'project');
  if (named.length === 0)
    return [{ label: 'project', operator: '=', values: [projects.defaultProject(namespace)] }, ...matchers];
  // A namespace that may write any project (`*`) may also name projects with `!=`.
  if (projects.refusal(namespace, '*') === undefined) return matchers;
  for (const matcher of named) {
    if (matcher.operator === '!=')
      throw new WindowSpecRefusal(
        'ProjectNotAllowed',
        `spec.matchers: namespace ${namespace} may name projects only with "=" (it may not write every project)`,
      );
    for (const project of matcher.values) {
      const refusal = projects.refusal(namespace, project);
      if (refusal !== undefined) throw new WindowSpecRefusal('ProjectNotAllowed', refusal);
    }
  }
  return matchers;
}

/** What the hub is to hold for the resource, or a WindowSpecRefusal naming the first wrong field. */
export function windowDefinitionOf(
  resource: WindowResource,
  projects: ProjectPolicy,
): MaintenanceWindowDefinition {
  const { name: _ignored, ...spec } = resource.spec ?? {};
  const parsed = maintenanceWindowDefinitionSchema.safeParse({ ...spec, name: hubWindowName(resource) });
  if (!parsed.success) {
    const [issue] = toFieldIssues(parsed.error);
    const where = issue?.path === 'name' ? 'metadata.name' : `spec.${issue?.path ?? ''}`;
    throw new WindowSpecRefusal(
      'InvalidSpec',
      issue === undefined
        ? 'the spec is invalid'
        : describeIssue({
            path: where,
            message:
              issue.path === 'name'
                ? `"${hubWindowName(resource)}" (namespace-name) must be ${issue.message}`
                : issue.message,
          }),
    );
  }
  return {
    ...parsed.data,
    matchers: scopedMatchers(parsed.data.matchers, resource.metadata.namespace, projects),
  };
}
