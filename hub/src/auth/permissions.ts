import type { Role } from '../contract/roles.js';

export type Permission =
  | 'read'
  | 'monitors:write'
  | 'runs:write'
  | 'secrets:write'
  | 'integrations:write'
  | 'connections:write'
  | 'oauth:write'
  | 'secrets:resolve'
  | 'events:report'
  | 'runs:report';

const viewer: Permission[] = ['read'];
const editor: Permission[] = [...viewer, 'monitors:write', 'runs:write', 'secrets:write'];
// Reporting runs and deliveries and resolving secret values stay with `service` (DESIGN.md "Auth"): an admin who
// could report would forge results over real failures, and one who could resolve would read every secret value.
const admin: Permission[] = [...editor, 'integrations:write', 'connections:write', 'oauth:write'];
// Runners and notification workers read what they execute, resolve secrets and report runs and deliveries.
const service: Permission[] = ['read', 'secrets:resolve', 'events:report', 'runs:report'];

const grants: Record<Role, ReadonlySet<Permission>> = {
  viewer: new Set(viewer),
  editor: new Set(editor),
  admin: new Set(admin),
  service: new Set(service),
};

export function roleMay(role: Role, permission: Permission): boolean {
  return grants[role].has(permission);
}

/** Everything `role` may do, as roleMay checks it (the console shows only these). */
export function permissionsOf(role: Role): Permission[] {
  return [...grants[role]];
}
