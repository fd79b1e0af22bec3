import type { Role } from './principal.js';

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
const admin: Permission[] = [
  ...editor,
  'integrations:write',
  'connections:write',
  'oauth:write',
  'secrets:resolve',
  'events:report',
  'runs:report',
];
// Runners and notification workers read what they execute, resolve secrets and report deliveries; nothing else.
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
