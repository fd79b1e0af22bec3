import type { Request, RequestHandler } from 'express';
import { ForbiddenError, UnauthorizedError } from '../http/errors.js';
import { roleMay, type Permission } from './permissions.js';
import type { Principal, TokenVerifier } from './principal.js';

const principals = new WeakMap<Request, Principal>();

/** Reads `Authorization: Bearer <token>` and attaches the verified principal to the request. */
export function authenticate(verifier: TokenVerifier): RequestHandler {
  return async (req, _res, next) => {
    const header = req.get('authorization');
    if (header === undefined || header.trim() === '') {
      throw new UnauthorizedError('authorization header is missing');
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (match?.[1] === undefined) throw new UnauthorizedError('authorization header is invalid');
    const principal = await verifier.verify(match[1]);
    principals.set(req, principal);
    req.log.setBindings({ organizationId: principal.organizationId, subject: principal.subject });
    next();
  };
}

/** The caller of an authenticated request. Routes behind `authenticate` always have one. */
export function principalOf(req: Request): Principal {
  const principal = principals.get(req);
  if (principal === undefined) throw new UnauthorizedError('authorization header is missing');
  return principal;
}

/** Answers 403 unless the caller's role carries `permission`. */
export function requirePermission(permission: Permission): RequestHandler {
  return (req, _res, next) => {
    const { role } = principalOf(req);
    if (!roleMay(role, permission)) {
      throw new ForbiddenError(`role ${role} may not ${describe(permission)}`);
    }
    next();
  };
}

function describe(permission: Permission): string {
  const [resource, action] = permission.split(':');
  return action === undefined ? `${resource}` : `${action} ${resource}`;
}

/**
 * Answers 403 unless the caller is an `admin` of the platform organization (PLATFORM_ADMIN_ORGANIZATION,
 * docs/adr/0028-quotas-and-bulk-writes.md): an organization's own admin must not raise its own quotas.
 */
export function requirePlatformAdmin(platformOrganization: string | undefined): RequestHandler {
  return (req, _res, next) => {
    const { role, organizationId } = principalOf(req);
    if (platformOrganization === undefined || role !== 'admin' || organizationId !== platformOrganization)
      throw new ForbiddenError(
        'only an admin of the platform organization (PLATFORM_ADMIN_ORGANIZATION) may read or change quotas of organizations',
      );
    next();
  };
}
